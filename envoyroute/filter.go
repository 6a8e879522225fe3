package envoyroute

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// applicable returns the rate limits filter f applies on route r of virtual host vh, as
// Envoy's rate-limit filter chooses them: a RateLimitPerRoute's rate_limits replace every
// other; else the filter's own; else the route's of the filter's stage, then the virtual
// host's when the route says to include them (include_vh_rate_limits, vh_rate_limits
// INCLUDE) or, by default (OVERRIDE), when the route has none.
func (c *Config) applicable(f *Filter, vh *routev3.VirtualHost, vi int, r *routev3.Route, ri int, ev *Evaluation) []source {
	pr, level := c.perRoute(f.Name, vh, r)
	if len(pr.GetRateLimits()) > 0 {
		if !ev.quiet {
			ev.tracef("filter %s: the rate_limits of the %s's RateLimitPerRoute replace every other", f.Name, level)
		}
		return sources(pr.RateLimits, origin{kind: originPerRoute, vi: vi, ri: ri, level: level, name: f.Name})
	}
	stage := f.Config.GetStage()
	if rls := f.Config.GetRateLimits(); len(rls) > 0 {
		if !ev.quiet {
			ev.tracef("filter %s: the filter's own rate_limits replace the route's and the virtual host's", f.Name)
		}
		return staged(sources(rls, origin{kind: originFilter, name: f.Name}), stage)
	}
	routeRLs := r.GetRoute().GetRateLimits()
	out := staged(sources(routeRLs, origin{kind: originRoute, vi: vi, ri: ri}), stage)
	include := false
	switch {
	case r.GetRoute().GetIncludeVhRateLimits().GetValue():
		include = true
	case pr != nil && pr.VhRateLimits == ratelimitv3.RateLimitPerRoute_INCLUDE:
		include = true
	case pr != nil && pr.VhRateLimits == ratelimitv3.RateLimitPerRoute_IGNORE:
		if len(vh.RateLimits) > 0 {
			if !ev.quiet {
				ev.tracef("filter %s: the %s's vh_rate_limits IGNORE leaves out the virtual host's rate_limits", f.Name, level)
			}
		}
	default:
		include = len(routeRLs) == 0
		if !include && len(vh.RateLimits) > 0 {
			if !ev.quiet {
				ev.tracef("filter %s: the route has rate_limits, which override the virtual host's (vh_rate_limits OVERRIDE)", f.Name)
			}
		}
	}
	if include {
		out = append(out, staged(sources(vh.RateLimits, origin{kind: originVirtualHost, vi: vi}), stage)...)
	}
	return out
}

func perRoutePath(level string, vi, ri int, name string) string {
	switch level {
	case "route":
		return fmt.Sprintf("virtual_hosts[%d].routes[%d].typed_per_filter_config[%s].rate_limits", vi, ri, name)
	case "virtual host":
		return fmt.Sprintf("virtual_hosts[%d].typed_per_filter_config[%s].rate_limits", vi, name)
	}
	return fmt.Sprintf("typed_per_filter_config[%s].rate_limits", name)
}

// staged keeps the rate limits of a filter's stage, in in's memory.
func staged(in []source, stage uint32) []source {
	out := in[:0]
	for _, s := range in {
		if s.rl.GetStage().GetValue() == stage {
			out = append(out, s)
		}
	}
	return out
}

// filterCalls adds the calls filter f makes for q: one on the request with the
// descriptors of the rate limits that apply, one when the stream is done with those of
// apply_on_stream_done; none without descriptors.
func (c *Config) filterCalls(ev *Evaluation, f *Filter, vh *routev3.VirtualHost, vi int, r *routev3.Route, ri int, q *prepared) {
	domain := f.Config.GetDomain()
	if pr, level := c.perRoute(f.Name, vh, r); pr.GetDomain() != "" {
		domain = pr.Domain
		if !ev.quiet {
			ev.tracef("filter %s: domain %s from the %s's RateLimitPerRoute", f.Name, domain, level)
		}
	}
	now := Call{Filter: f.Name, Request: rlsmsg.Request{Domain: domain, HitsAddend: q.HitsAddend}}
	done := now
	written := now // stream-done descriptors whose cost the response wrote
	written.FromResponse = true
	for _, s := range c.applicable(f, vh, vi, r, ri, ev) {
		at, dq := &now, q
		if s.rl.ApplyOnStreamDone {
			at = &done
			if wq := streamDone(q, s.rl); wq != nil {
				at, dq = &written, wq
			}
		}
		d, ok, why := c.populate(s.rl, r, dq)
		if !ok {
			if !ev.quiet {
				ev.tracef("%s: no descriptor: %s%s", s.path(), why, responseNote(q, s.rl))
			}
			continue
		}
		at.Request.Descriptors = append(at.Request.Descriptors, d)
		if !ev.quiet {
			at.Sources = append(at.Sources, s.path())
		}
	}
	if len(now.Request.Descriptors) > 0 {
		ev.Calls = append(ev.Calls, now)
	} else {
		if !ev.quiet {
			ev.tracef("filter %s: no descriptor, no call", f.Name)
		}
	}
	if len(done.Request.Descriptors) > 0 {
		ev.Done = append(ev.Done, done)
	}
	if len(written.Request.Descriptors) > 0 {
		ev.Done = append(ev.Done, written)
	}
}
