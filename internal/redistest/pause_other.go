//go:build !unix

package redistest

import "testing"

// Pause freezes the server; it needs Unix signals, so here it skips the
// test.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	t.Skip("redistest: Pause needs SIGSTOP (Unix only)")
}

// Resume continues a server frozen by Pause; see Pause.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	t.Skip("redistest: Resume needs SIGCONT (Unix only)")
}
