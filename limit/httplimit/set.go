package httplimit

import (
	"net/http"

	"github.com/BurntSushi/toml"
	"github.com/rlpkit/rlpkit/fielderr"
)

// Set is the limit plugins of one configuration, in order, placed by their
// step: Handler wraps a handler in the "request" ones, RoundTripper wraps a
// transport in the "proxy_upstream" ones. A Set is immutable and safe for
// concurrent use; create it with NewSet or Load.
type Set struct {
	limiters []*Limiter
	upstream bool // some limiter is at step proxy_upstream
}

// NewSet returns the limiters of plugins, each built with opts (see New).
// Configuration errors of every plugin are reported at once, as a fielderr.List
// with paths such as "plugins.rateLimit.max"; two plugins of one name are an
// error. Plugins sharing a store keep separate counters: counter keys start
// with the plugin's name.
func NewSet(plugins []Plugin, opts ...Option) (*Set, error) {
	var errs fielderr.List
	seen := map[string]bool{}
	s := &Set{}
	for _, p := range plugins {
		at := toml.Key{"plugins", p.Name}.String()
		if p.Name == "" {
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: "plugins", Detail: "a plugin has an empty name"})
			continue
		}
		if seen[p.Name] {
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: at, Detail: "defined twice"})
			continue
		}
		seen[p.Name] = true
		if err := p.Config.Validate(); err != nil {
			for _, e := range err.(fielderr.List) {
				errs = append(errs, &fielderr.Error{Pkg: pkg, Field: at + "." + e.Field, Detail: e.Detail})
			}
			continue
		}
		l, err := New(p.Name, p.Config, opts...)
		if err != nil {
			return nil, err // an option's error: the same for every plugin
		}
		s.limiters = append(s.limiters, l)
		s.upstream = s.upstream || p.Config.Step == StepProxyUpstream
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// Load reads the TOML form of ParseTOML and returns its plugins as a Set.
func Load(data []byte, opts ...Option) (*Set, error) {
	plugins, err := ParseTOML(data)
	if err != nil {
		return nil, err
	}
	return NewSet(plugins, opts...)
}

// Limiters returns the set's limiters in order.
func (s *Set) Limiters() []*Limiter {
	return append([]*Limiter(nil), s.limiters...)
}

// Handler returns next behind the set's "request" limiters, the first one
// outermost: a request must pass them all, in order. A rejection by a later
// limiter does not undo an earlier rate limiter's count (each plugin counts
// the requests it sees, as pingap's plugins do) but does release an
// earlier in-flight count. When the set has "proxy_upstream" limiters, the
// inbound request is put in the context for them (see KeyFromInbound).
func (s *Set) Handler(next http.Handler) http.Handler {
	for i := len(s.limiters) - 1; i >= 0; i-- {
		if l := s.limiters[i]; l.cfg.Step == StepRequest {
			next = l.Handler(next)
		}
	}
	if s.upstream {
		next = KeyFromInbound(next)
	}
	return next
}

// RoundTripper returns next (nil: http.DefaultTransport) behind the set's
// "proxy_upstream" limiters, the first one outermost.
func (s *Set) RoundTripper(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	for i := len(s.limiters) - 1; i >= 0; i-- {
		if l := s.limiters[i]; l.cfg.Step == StepProxyUpstream {
			next = l.RoundTripper(next)
		}
	}
	return next
}
