package redis_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// quiet drops go-redis's log lines (dial failures while a test has killed
// the server); the errors that matter reach the tests through Update.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// redisURL is the address of the redis-server TestMain starts for the
// examples. Tests start servers of their own (redistest.Start), which they
// may kill and restart.
var redisURL string

// TestMain starts one redis-server for the examples. An example cannot skip
// itself, so when redis-server is not on PATH the examples are left out
// with -test.skip (and a line on stderr saying so), as redistest.Start
// skips the tests; with RLPKIT_REQUIRE_REDIS=1 the run fails instead.
func TestMain(m *testing.M) {
	goredis.SetLogger(quiet{})
	flag.Parse()
	srv, err := redistest.StartMain()
	switch {
	case err == nil:
		redisURL = srv.URL()
	case errors.Is(err, redistest.ErrNotOnPath) && os.Getenv(redistest.RequireEnv) != "1":
		fmt.Fprintf(os.Stderr, "%v: skipping the examples (set %s=1 to fail instead)\n", err, redistest.RequireEnv)
		skip := "^Example"
		if s := flag.Lookup("test.skip").Value.String(); s != "" {
			skip = s + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if srv != nil {
		srv.Stop()
	}
	os.Exit(code)
}
