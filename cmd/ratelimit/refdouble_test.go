package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// referenceDouble is a test double of envoyproxy/ratelimit's Redis
// counting, written from its behaviour (src/limiter/cache_key.go,
// src/redis/fixed_cache_impl.go, src/limiter/base_limiter.go at f2fb157):
// it writes into Redis what a reference replica writes, so that a test can
// run cmd/ratelimit beside it on one Redis.
//
//   - A counter's key is CACHE_KEY_PREFIX, the domain, "_", each entry's
//     key "_" value "_" (a share_threshold entry as its pattern), then the
//     start of the window in Unix seconds (now / unit * unit).
//   - Per descriptor with a limit, one pipeline: INCRBY key hits, EXPIRE
//     key unit + jitter in [0, EXPIRATION_JITTER_MAX_SECONDS).
//   - With STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, a pipeline of GETs
//     first: when some counter would go over (current + hits > limit),
//     those are incremented by their hits and the others by 0.
//   - A descriptor is over when the counter after INCRBY exceeds the limit
//     (remaining 0), else OK with the limit minus the counter; the reset
//     is unit - now % unit. Shadow mode turns an over status into OK.
//   - The request is OVER_LIMIT when any descriptor's status is.
type referenceDouble struct {
	client    goredis.UniversalClient
	prefix    string
	jitterMax int64
	jitter    func(n int64) int64
	stop      bool
	now       func() time.Time
}

// refDescriptor is one descriptor of a request with what the reference's
// configuration gives it.
type refDescriptor struct {
	entries [][2]string
	limit   *refLimit      // nil: no limit matched (OK, no counter)
	pattern map[int]string // share_threshold patterns by entry index
	shadow  bool
	hits    uint64
}

// refLimit is a limit: requests per unit, the unit in seconds.
type refLimit struct {
	rpu  uint64
	unit int64
}

// refStatus is the reference's status of one descriptor.
type refStatus struct {
	over      bool
	remaining uint64
	reset     int64 // seconds; 0 without a limit
}

func (d *referenceDouble) key(domain string, desc refDescriptor, now int64) string {
	var b strings.Builder
	b.WriteString(d.prefix + domain + "_")
	for i, e := range desc.entries {
		v := e[1]
		if p, ok := desc.pattern[i]; ok {
			v = p
		}
		b.WriteString(e[0] + "_" + v + "_")
	}
	b.WriteString(strconv.FormatInt(now/desc.limit.unit*desc.limit.unit, 10))
	return b.String()
}

// shouldRateLimit decides one request as the reference does, counting in
// Redis; it returns whether the request is over and every status.
func (d *referenceDouble) shouldRateLimit(ctx context.Context, domain string, descs []refDescriptor) (bool, []refStatus, error) {
	now := d.now().Unix()
	keys := make([]string, len(descs))
	addends := make([]uint64, len(descs))
	for i, desc := range descs {
		if desc.limit != nil {
			keys[i], addends[i] = d.key(domain, desc, now), desc.hits
		}
	}
	if d.stop {
		if err := d.spare(ctx, descs, keys, addends); err != nil {
			return false, nil, err
		}
	}
	pipe := d.client.Pipeline()
	after := make([]*goredis.IntCmd, len(descs))
	for i, desc := range descs {
		if keys[i] == "" {
			continue
		}
		ttl := desc.limit.unit
		if d.jitterMax > 0 {
			ttl += d.jitter(d.jitterMax)
		}
		after[i] = pipe.IncrBy(ctx, keys[i], int64(addends[i]))
		pipe.Expire(ctx, keys[i], time.Duration(ttl)*time.Second)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return false, nil, err
	}
	over := false
	sts := make([]refStatus, len(descs))
	for i, desc := range descs {
		if keys[i] == "" {
			continue
		}
		st := refStatus{reset: desc.limit.unit - now%desc.limit.unit}
		if n := uint64(after[i].Val()); n > desc.limit.rpu {
			st.over = !desc.shadow
		} else {
			st.remaining = desc.limit.rpu - n
		}
		over = over || st.over
		sts[i] = st
	}
	return over, sts, nil
}

// spare is STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's GET round trip.
func (d *referenceDouble) spare(ctx context.Context, descs []refDescriptor, keys []string, addends []uint64) error {
	pipe := d.client.Pipeline()
	cur := make([]*goredis.StringCmd, len(descs))
	for i := range descs {
		if keys[i] != "" {
			cur[i] = pipe.Get(ctx, keys[i])
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return err
	}
	would := make([]bool, len(descs))
	any := false
	for i, desc := range descs {
		if keys[i] == "" {
			continue
		}
		n, _ := cur[i].Uint64() // 0 when absent
		if n+desc.hits > desc.limit.rpu {
			would[i], any = true, true
		}
	}
	for i := range descs {
		if any && !would[i] {
			addends[i] = 0
		}
	}
	return nil
}

// commandLog is a go-redis hook writing down the counting commands sent
// (INCRBY, EXPIRE, GET) as text, "incrby key 1".
type commandLog struct {
	mu   sync.Mutex
	cmds []string
}

func (l *commandLog) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (l *commandLog) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		l.add(cmd)
		return next(ctx, cmd)
	}
}

func (l *commandLog) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		l.add(cmds...)
		return next(ctx, cmds)
	}
}

func (l *commandLog) add(cmds ...goredis.Cmder) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cmds {
		switch c.Name() {
		case "incrby", "expire", "get":
			var parts []string
			for _, a := range c.Args() {
				parts = append(parts, fmt.Sprint(a))
			}
			l.cmds = append(l.cmds, strings.Join(parts, " "))
		}
	}
}

// take returns the commands since the last take.
func (l *commandLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.cmds
	l.cmds = nil
	return c
}
