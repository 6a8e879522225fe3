package main

import (
	"flag"
	"strconv"
	"time"

	"github.com/rlpkit/rlpkit/limit/redis"
)

// pipelineOptions are the flags that shape how the Redis store shares
// round trips and script calls among concurrent calls (limit/redis
// Options.Window and Options.BatchRequests), named as envoyproxy/ratelimit
// names its own: REDIS_PIPELINE_WINDOW and REDIS_PIPELINE_LIMIT, which
// cmd/ratelimit maps to the same options.
type pipelineOptions struct {
	// window, when positive, holds a call that finds Redis free for up to
	// this long, so that others join its round trip; 0: no wait.
	window time.Duration
	// limit bounds the calls one script call decides; 0:
	// redis.DefaultBatchRequests.
	limit int
}

// addPipelineFlags defines the flags of pipelineOptions on fs.
func addPipelineFlags(fs *flag.FlagSet, o *pipelineOptions) {
	fs.DurationVar(&o.window, "redis-pipeline-window", 0, "with --redis: hold a call that finds Redis free up to this long, or until --redis-pipeline-limit calls are waiting, so that they share one round trip: less CPU per decision in the server and in Redis at a steady rate well below the server's capacity, for up to this much latency, and less throughput near it (0: no wait; envoyproxy/ratelimit's REDIS_PIPELINE_WINDOW)")
	fs.IntVar(&o.limit, "redis-pipeline-limit", 0, "with --redis: the most calls one Redis script call decides (0: "+strconv.Itoa(redis.DefaultBatchRequests)+"; envoyproxy/ratelimit's REDIS_PIPELINE_LIMIT)")
}

// checkPipelineFlags reports a usage error for pipeline flags out of range
// or given without --redis.
func checkPipelineFlags(o *serveOptions) error {
	p, src := o.pipeline, o.sources
	switch {
	case p.window < 0:
		return usagef("%s %v: want 0 or more", src.name("redis-pipeline-window"), p.window)
	case p.limit < 0 || p.limit > maxPipelineLimit:
		return usagef("%s %d: want 0 to %d", src.name("redis-pipeline-limit"), p.limit, maxPipelineLimit)
	case o.redisURL == "" && (p.window != 0 || p.limit != 0):
		return usagef("%s and %s shape the calls sent to Redis; they need --redis", src.name("redis-pipeline-window"), src.name("redis-pipeline-limit"))
	}
	return nil
}

// maxPipelineLimit is the largest --redis-pipeline-limit, as cmd/ratelimit
// bounds REDIS_PIPELINE_LIMIT.
const maxPipelineLimit = 1 << 20

// apply sets the options of p on ro.
func (p pipelineOptions) apply(ro *redis.Options) {
	ro.Window, ro.BatchRequests = p.window, p.limit
}
