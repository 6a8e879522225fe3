package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ratelimit --help prints the usage and exits 0, even where the
// environment would let it serve.
func TestHelpPrintsUsage(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit", "config", "d.yaml"), limitYAML(10))
	for _, arg := range []string{"--help", "-h"} {
		t.Run(arg, func(t *testing.T) {
			cmd := exec.Command(binary(t), arg)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, environ(baseEnv(root))...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("ratelimit %s: %v\n%s", arg, err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("ratelimit %s did not exit within 20s; it serves:\n%s", arg, stderr.String())
			}
			out := stdout.String()
			for _, want := range []string{"Usage: ratelimit", "docs/migrating-from-envoy-ratelimit.md", "REDIS_URL", "RLPKIT_HTTP_READ_HEADER_TIMEOUT", "GRPC_PORT"} {
				if !strings.Contains(out, want) {
					t.Errorf("ratelimit %s: the usage lacks %q:\n%s", arg, want, out)
				}
			}
			if strings.Contains(stderr.String(), "serving") {
				t.Errorf("ratelimit %s served:\n%s", arg, stderr.String())
			}
		})
	}
}

// Other arguments are reported and ignored, as the reference ignores them.
func TestArgumentsIgnored(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code, done := arguments([]string{"-v", "x"}, &stdout, &stderr)
	if done || code != 0 {
		t.Errorf("arguments(-v x) = %d, %v; want the start to go on", code, done)
	}
	if !strings.Contains(stderr.String(), "ignoring -v x") || stdout.Len() != 0 {
		t.Errorf("arguments(-v x) wrote stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if code, done := arguments(nil, &stdout, &stderr); done || code != 0 {
		t.Errorf("arguments() = %d, %v", code, done)
	}
}
