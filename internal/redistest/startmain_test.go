package redistest

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestStartMain starts a server as a TestMain would, talks to it, and stops
// it: afterwards it no longer answers and its directory is gone.
func TestStartMain(t *testing.T) {
	s, err := StartMain()
	if errors.Is(err, ErrNotOnPath) && os.Getenv(RequireEnv) != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("StartMain() error: %v", err)
	}
	if got, err := do(s.Addr, time.Second, "PING"); err != nil || got != "+PONG" {
		t.Fatalf("PING = %q, %v, want +PONG", got, err)
	}
	s.Stop()
	if _, err := do(s.Addr, 100*time.Millisecond, "PING"); err == nil {
		t.Errorf("PING after Stop answered, want an error")
	}
	if _, err := os.Stat(s.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(%s) after Stop = %v, want not exist", s.dir, err)
	}
}

// TestStartMainNotOnPath: without redis-server on PATH, StartMain says so
// with ErrNotOnPath, so a TestMain can tell it from a server that failed.
func TestStartMainNotOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s, err := StartMain()
	if !errors.Is(err, ErrNotOnPath) {
		t.Fatalf("StartMain() = %v, %v, want ErrNotOnPath", s, err)
	}
}
