package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultAckTimeout is how long a pipeline waits for its replicas'
// acknowledgement (Options.AckReplicas), unless Options.AckTimeout says
// otherwise.
const DefaultAckTimeout = 100 * time.Millisecond

// ErrNotAcknowledged is wrapped by the error of an Update whose writes
// fewer than Options.AckReplicas replicas acknowledged in time.
var ErrNotAcknowledged = errors.New("limit/redis: writes not acknowledged by the replicas")

// ack is a pipeliner's Options.AckReplicas and AckTimeout.
type ack struct {
	replicas int
	timeout  time.Duration
}

// queue adds WAIT to pipe, after the script calls, so that it runs on the
// connection that carries their writes; nil without a.replicas.
func (a ack) queue(ctx context.Context, pipe goredis.Pipeliner) *goredis.IntCmd {
	if a.replicas == 0 {
		return nil
	}
	cmd := goredis.NewIntCmd(ctx, "wait", a.replicas, a.timeout.Milliseconds())
	_ = pipe.Process(ctx, cmd)
	return cmd
}

// result returns nil when WAIT's cmd (nil: none) says enough replicas
// acknowledged the writes before it.
func (a ack) result(cmd *goredis.IntCmd) error {
	if cmd == nil {
		return nil
	}
	n, err := cmd.Result()
	if err != nil {
		return fmt.Errorf("%w: WAIT %d %v: %w", ErrNotAcknowledged, a.replicas, a.timeout, err)
	}
	if n < int64(a.replicas) {
		return fmt.Errorf("%w: %d of %d within %v", ErrNotAcknowledged, n, a.replicas, a.timeout)
	}
	return nil
}
