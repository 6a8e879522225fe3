package httplimit

import (
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// Type selects the limiter of a plugin: "rate" or "inflight".
type Type string

const (
	// TypeRate limits requests per interval with pingap's weighted
	// sliding window. It is the default.
	TypeRate Type = "rate"
	// TypeInflight limits concurrent requests: a count taken when a request
	// is admitted and given back when it finishes.
	TypeInflight Type = "inflight"
)

// Tag selects where a request's limit key comes from: "ip", "header",
// "cookie" or "query".
//
// tag "ip" is the peer address (http.Request.RemoteAddr without the port),
// or, behind proxies listed with WithTrustedProxies, the right-most
// X-Forwarded-For hop that is not trusted. IPv4-mapped IPv6 addresses count
// as their IPv4 form; IPv6 clients are keyed by their full address, not
// their /64. tag "header" is the first value of the header named by key;
// "cookie" and "query" are read exactly as (*http.Request).Cookie and
// url.Values.Get read them (a fuzz test holds them to net/http's answers).
type Tag string

const (
	// TagIP keys on the client address: the peer address, or with trusted
	// proxies configured the right-most untrusted X-Forwarded-For hop (see
	// WithTrustedProxies). It is the default and needs no Config.Key.
	TagIP Tag = "ip"
	// TagHeader keys on the first value of the request header named by
	// Config.Key.
	TagHeader Tag = "header"
	// TagCookie keys on the first cookie named Config.Key, as
	// http.Request.Cookie finds it.
	TagCookie Tag = "cookie"
	// TagQuery keys on the first value of the query parameter named
	// Config.Key, as url.Values.Get finds it.
	TagQuery Tag = "query"
)

// Step selects where a plugin runs: "request" or "proxy_upstream".
type Step string

const (
	// StepRequest runs the limiter as an http.Handler middleware, before
	// anything else handles the request. It is the default.
	StepRequest Step = "request"
	// StepProxyUpstream runs the limiter as an http.RoundTripper in front of
	// the upstream, so only requests that reach it are counted: responses
	// served before (by a cache, say) are not charged.
	StepProxyUpstream Step = "proxy_upstream"
)

// Defaults of pingap's configuration table.
const (
	// DefaultInterval is the default rate window.
	DefaultInterval = 10 * time.Second
	// DefaultWeight is the default weight of the current window, in percent.
	DefaultWeight = 50
	// Category is the only valid Config.Category.
	Category = "limit"
)

// Config is one limit plugin, with exactly the keys of pingap's
// configuration table. The zero value is not valid; start from
// DefaultConfig, which holds pingap's defaults, and set Max. A Config is a
// plain value.
type Config struct {
	// Category must be "limit".
	Category string
	// Type is the limiter: TypeRate or TypeInflight.
	Type Type
	// Tag is where the key comes from: TagIP, TagHeader, TagCookie or
	// TagQuery.
	Tag Tag
	// Key names the header, cookie or query parameter. It is required
	// unless Tag is TagIP, which ignores it.
	Key string
	// Max is the number of requests allowed per Interval (rate) or at once
	// (inflight). It must not be negative, and at most 4294967295
	// (counter.MaxPolicyValue). 0 rejects every request that has a key.
	Max int64
	// Interval is the rate window: greater than zero, at least a
	// microsecond (the resolution the window is counted at) and at most
	// counter.MaxWindow. Inflight ignores it but it must still be valid.
	Interval time.Duration
	// Weight is how much the current window counts against the previous
	// one, in percent, 0 to 100. 0 uses the previous window alone.
	// Inflight ignores it but it must still be valid.
	Weight int
	// Step is where the plugin runs: StepRequest or StepProxyUpstream.
	Step Step
}

// DefaultConfig returns pingap's defaults: category "limit", type "rate",
// tag "ip", interval 10s, weight 50, step "request". Max is 0 and must be
// set: pingap has no default for it.
func DefaultConfig() Config {
	return Config{
		Category: Category,
		Type:     TypeRate,
		Tag:      TagIP,
		Interval: DefaultInterval,
		Weight:   DefaultWeight,
		Step:     StepRequest,
	}
}

// Validate checks c with pingap's rules and returns every problem as an
// fielderr.List whose paths are the keys ("max", "weight"), or nil.
func (c Config) Validate() error {
	var errs fielderr.List
	add := func(path, format string, args ...any) {
		errs = append(errs, &fielderr.Error{Pkg: pkg, Field: path, Detail: fmt.Sprintf(format, args...)})
	}
	if c.Category != Category {
		add("category", "must be %q, got %q", Category, c.Category)
	}
	switch c.Type {
	case TypeRate, TypeInflight:
	default:
		add("type", "unknown type %q, want %q or %q", c.Type, TypeRate, TypeInflight)
	}
	switch c.Tag {
	case TagIP:
	case TagHeader, TagCookie, TagQuery:
		if c.Key == "" {
			add("key", "required when tag is %q", c.Tag)
		}
	default:
		add("tag", "unknown tag %q, want %q, %q, %q or %q", c.Tag, TagIP, TagHeader, TagCookie, TagQuery)
	}
	switch {
	case c.Max < 0:
		add("max", "must not be negative, got %d", c.Max)
	case c.Max > counter.MaxPolicyValue:
		add("max", "must be at most %d, got %d", uint64(counter.MaxPolicyValue), c.Max)
	}
	switch {
	case c.Interval <= 0:
		add("interval", "must be greater than 0, got %q", c.Interval.String())
	case c.Interval < time.Microsecond:
		add("interval", "must be at least 1µs, got %q", c.Interval.String())
	case c.Interval > counter.MaxWindow:
		add("interval", "must be at most %q, got %q", counter.MaxWindow.String(), c.Interval.String())
	}
	if c.Weight < 0 || c.Weight > 100 {
		add("weight", "must be between 0 and 100, got %d", c.Weight)
	}
	switch c.Step {
	case StepRequest, StepProxyUpstream:
	default:
		add("step", "unknown step %q, want %q or %q", c.Step, StepRequest, StepProxyUpstream)
	}
	return errs.Err()
}

// policy returns the counter package's policy for a valid rate config.
func (c Config) policy() counter.Policy {
	return counter.Policy{
		Algorithm: counter.AlgorithmSlidingWindow,
		Max:       uint64(c.Max),
		Window:    c.Interval,
		Weighted:  true,
		Weight:    uint8(c.Weight),
	}
}
