package httplimit

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// Limiter is one limit plugin: a rate or in-flight limiter with its key. Its
// Handler and RoundTripper share one implementation and one set of counters.
// A Limiter is safe for concurrent use; create it with New.
type Limiter struct {
	name   string
	cfg    Config
	opts   options
	prefix string

	headerKey    string // canonical header name, for TagHeader
	cookieNameOK bool   // Key is a token, for TagCookie

	// rate
	policy     counter.Policy
	store      counter.Store
	mem        *counter.MemoryStore // store, when it is a memory store
	scale      float64              // max(interval in seconds, 1)
	retryAfter string

	// inflight
	inflight *counter.InFlight
}

// New returns the limiter of the plugin named name (the name of its
// `[plugins.NAME]` table; it must not be empty) with configuration c. It
// returns c.Validate's errors, and an error for an invalid option.
func New(name string, c Config, opts ...Option) (*Limiter, error) {
	if name == "" {
		return nil, errors.New("httplimit: New: empty plugin name")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{name: name, cfg: c, prefix: keyPrefix(name, c)}
	for _, o := range opts {
		o(&l.opts)
	}
	if len(l.opts.errs) > 0 {
		return nil, fmt.Errorf("httplimit: %s", strings.Join(l.opts.errs, "; "))
	}
	if l.opts.clock == nil {
		l.opts.clock = time.Now
	}
	switch c.Tag {
	case TagHeader:
		l.headerKey = textproto.CanonicalMIMEHeaderKey(c.Key)
	case TagCookie:
		l.cookieNameOK = isToken(c.Key)
	}
	switch c.Type {
	case TypeRate:
		l.policy = c.policy()
		l.store = l.opts.store
		if l.store == nil {
			l.store = counter.NewMemoryStore(counter.MemoryOptions{})
		}
		l.mem, _ = l.store.(*counter.MemoryStore)
		l.scale = math.Max(c.Interval.Seconds(), 1)
		secs := (c.Interval + time.Second - 1) / time.Second
		l.retryAfter = strconv.FormatInt(int64(secs), 10)
	case TypeInflight:
		l.inflight = counter.NewInFlight(uint64(c.Max))
	}
	return l, nil
}

// Name returns the plugin's name.
func (l *Limiter) Name() string { return l.name }

// Config returns the plugin's configuration.
func (l *Limiter) Config() Config { return l.cfg }

// InUse returns the in-flight count held for a key value (the client
// address, or the header, cookie or query value), or 0 for a rate limiter.
func (l *Limiter) InUse(value string) uint64 {
	if l.inflight == nil {
		return 0
	}
	return l.inflight.InUse(l.prefix + string(appendValue(nil, value)))
}

// rejection is a request turned away: the response to send instead.
type rejection struct {
	status     int
	body       string
	retryAfter string // empty: no Retry-After
}

var errUnavailable = &rejection{status: http.StatusServiceUnavailable, body: "rate limit unavailable"}

// scratch is per-request working memory, pooled so that a decision
// allocates nothing on the memory store's path.
type scratch struct {
	key       []byte
	updates   [1]counter.Update
	decisions [1]counter.Decision
}

var scratchPool = sync.Pool{New: func() any { return &scratch{key: make([]byte, 0, 128)} }}

// admit decides on r, the request the key is read from. It returns a release
// func when an in-flight count is held (the caller must call it once the
// request is done), a rejection when the request is turned away, and neither
// when it passes without holding anything.
func (l *Limiter) admit(r *http.Request) (release func(), rej *rejection) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	key, ok := l.appendKeyValue(append(sc.key[:0], l.prefix...), r)
	sc.key = key[:0]
	if !ok {
		return nil, nil // missing or empty key: not limited
	}
	if l.inflight != nil {
		release, d := l.inflight.Acquire(string(key), 1)
		if !d.Allowed {
			return nil, l.reject(d.Used)
		}
		return release, nil
	}
	u := counter.Update{Key: unsafe.String(unsafe.SliceData(key), len(key)), Policy: l.policy, Cost: 1}
	now := l.opts.clock()
	var d counter.Decision
	var err error
	if l.mem != nil {
		d, err = l.mem.UpdateOne(now, u)
	} else {
		sc.updates[0] = u
		err = l.store.Update(r.Context(), now, sc.updates[:], sc.decisions[:])
		d = sc.decisions[0]
		sc.updates[0] = counter.Update{}
	}
	if err != nil {
		if l.opts.onStoreErr != nil && l.opts.onStoreErr(r, fmt.Errorf("httplimit: plugin %s: %w", l.name, err)) {
			return nil, nil
		}
		return nil, errUnavailable
	}
	if !d.Allowed {
		// Used is pingap's per-second estimate; scaled by the interval
		// (floored at 1 s) it is in the unit of max.
		return nil, l.reject(d.Used * l.scale)
	}
	return nil, nil
}

// reject builds the over-limit answer: body "exceed limit <value>/<max>".
func (l *Limiter) reject(value float64) *rejection {
	body := "exceed limit " + formatValue(value) + "/" + strconv.FormatInt(l.cfg.Max, 10)
	return &rejection{status: http.StatusTooManyRequests, body: body, retryAfter: l.retryAfter}
}

// formatValue writes v with at most two decimals, trailing zeros removed.
func formatValue(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
