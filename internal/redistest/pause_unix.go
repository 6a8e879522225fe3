//go:build unix

package redistest

import (
	"syscall"
	"testing"
)

// Pause freezes the server with SIGSTOP: connections are still accepted by
// the kernel but nothing is answered, as with a hung server or a network
// partition. Resume undoes it; Kill and the test's cleanup work on a paused
// server.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGSTOP)
}

// Resume continues a server frozen by Pause.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGCONT)
}

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		t.Fatalf("redistest: signal %v: server on %s is not running", sig, s.Addr)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("redistest: signal %v to server on %s: %v", sig, s.Addr, err)
	}
}
