package redis

import (
	"context"
	"os"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// quiet drops go-redis's log lines (dial failures while a test has killed
// the server); the errors that matter reach the tests through Update.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	goredis.SetLogger(quiet{})
	os.Exit(m.Run())
}
