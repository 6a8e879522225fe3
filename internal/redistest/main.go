package redistest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// ErrNotOnPath is returned by StartMain when redis-server is not on PATH.
var ErrNotOnPath = errors.New("redistest: redis-server is not on PATH")

// StartMain is Start for a package's TestMain, where there is no test to
// skip or fail: a package whose examples need Redis starts one server for
// the whole test binary before m.Run and calls Stop after it. It returns
// ErrNotOnPath (wrapped) when redis-server is not on PATH; the caller decides
// what to skip, and should fail instead when RequireEnv is "1".
func StartMain() (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotOnPath, err)
	}
	dir, err := os.MkdirTemp("", "redistest")
	if err != nil {
		return nil, fmt.Errorf("redistest: %v", err)
	}
	s := &Server{bin: bin, dir: dir}
	if err := s.startOnFreePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// Stop kills a server started by StartMain and removes its directory.
func (s *Server) Stop() {
	s.Kill()
	os.RemoveAll(s.dir)
}
