package script

import (
	"context"

	goredis "github.com/redis/go-redis/v9"
)

// Piper makes pipelines: a go-redis client of any kind.
type Piper interface {
	Pipeline() goredis.Pipeliner
}

// Eval runs len(cmds) script calls in one pipeline of EVALSHA, then those
// Redis answered NOSCRIPT (after a restart or SCRIPT FLUSH) in one of EVAL,
// which loads the script again; cmds[i] is then call i's reply, each with
// its own error. add queues call i on pipe, with EVALSHA when sha is set.
func Eval(ctx context.Context, c Piper, cmds []*goredis.Cmd, add func(pipe goredis.Pipeliner, i int, sha bool) *goredis.Cmd) {
	pipe := c.Pipeline()
	for i := range cmds {
		cmds[i] = add(pipe, i, true)
	}
	pipe.Exec(ctx) // each command holds its own error
	var again []int
	for i, cmd := range cmds {
		if goredis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return
	}
	pipe = c.Pipeline()
	for _, i := range again {
		cmds[i] = add(pipe, i, false)
	}
	pipe.Exec(ctx)
}
