package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
)

const (
	// maxPingTimeout bounds one readiness PING (--redis-timeout when shorter).
	maxPingTimeout = 500 * time.Millisecond
	// readyCacheTTL is how long a PING's answer is reused, so that probes
	// do not hammer Redis.
	readyCacheTTL = time.Second
	// pingInterval is how often the store is pinged when nothing else asks,
	// so that gRPC health and the log follow Redis without traffic.
	pingInterval = 5 * time.Second
)

// Store states; the first report moves from stateUnknown.
const (
	stateUnknown int32 = iota
	stateReachable
	stateUnreachable
)

// storeHealth is whether the counter store answers, learnt from every
// update and from PINGs. Each change of state is logged once and passed to
// onChange; the first state is logged only when it is unreachable.
type storeHealth struct {
	kind     string                      // "memory" or "redis", for logs
	ping     func(context.Context) error // nil: the memory store always answers
	timeout  time.Duration               // of one PING
	log      *slog.Logger
	onChange func(reachable bool)

	state   atomic.Int32
	stateMu sync.Mutex // serializes changes, so onChange sees them in order
	lastErr error      // why it is unreachable; under stateMu

	pingMu sync.Mutex // one PING at a time
	pinged time.Time  // when the last PING answered; under pingMu
}

func newStoreHealth(cs *counterStore, timeout time.Duration, log *slog.Logger, onChange func(bool)) *storeHealth {
	return &storeHealth{kind: cs.kind, ping: cs.ping, timeout: timeout, log: log, onChange: onChange}
}

// report records an update's or a PING's result: nil when the store
// answered.
func (h *storeHealth) report(err error) {
	want := stateReachable
	if err != nil {
		want = stateUnreachable
	}
	if h.state.Load() == want && err == nil {
		return
	}
	h.stateMu.Lock()
	defer h.stateMu.Unlock()
	old := h.state.Load()
	if err != nil {
		h.lastErr = err
	}
	if old == want {
		return
	}
	h.state.Store(want)
	switch {
	case want == stateUnreachable:
		h.log.Error("store unreachable; calls answer Unavailable until it answers", "store", h.kind, "err", err.Error())
	case old == stateUnreachable:
		h.log.Info("store reachable again", "store", h.kind)
	}
	h.onChange(want == stateReachable)
}

// start learns the first state: at once for the memory store, by a PING for
// Redis.
func (h *storeHealth) start(ctx context.Context) {
	if h.ping == nil {
		h.report(nil)
		return
	}
	h.pingNow(ctx)
}

// ready reports whether the store answers: nil, or why not. With Redis it
// PINGs, unless a PING answered within readyCacheTTL; updates that failed or
// succeeded since count too.
func (h *storeHealth) ready(ctx context.Context) error {
	if h.ping != nil {
		h.pingMu.Lock()
		fresh := time.Since(h.pinged) < readyCacheTTL
		h.pingMu.Unlock()
		if !fresh {
			h.pingNow(ctx)
		}
	}
	h.stateMu.Lock()
	defer h.stateMu.Unlock()
	switch h.state.Load() {
	case stateReachable:
		return nil
	case stateUnreachable:
		return h.lastErr
	}
	return errors.New("not checked yet")
}

// pingNow PINGs the store and reports the answer.
func (h *storeHealth) pingNow(ctx context.Context) {
	h.pingMu.Lock()
	defer h.pingMu.Unlock()
	if time.Since(h.pinged) < readyCacheTTL && h.state.Load() != stateUnknown {
		return // another caller pinged while this one waited
	}
	pctx, cancel := context.WithTimeout(ctx, h.timeout)
	err := h.ping(pctx)
	cancel()
	if ctx.Err() != nil {
		return // the asker left: the answer says nothing about the store
	}
	h.pinged = time.Now()
	h.report(err)
}

// monitor PINGs the store every interval until ctx is done, so that its
// state follows Redis without traffic or probes.
func (h *storeHealth) monitor(ctx context.Context, interval time.Duration) {
	if h.ping == nil {
		return
	}
	serving.Every(ctx, interval, func() { h.ready(ctx) })
}
