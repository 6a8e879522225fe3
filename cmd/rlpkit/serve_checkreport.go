package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rls"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// defaultMaxInFlight is --reserve-max-in-flight's default: Envoy's default
// route timeout, the longest a request runs unless a route says otherwise.
const defaultMaxInFlight = 15 * time.Second

// modeFlag is --check-report: an rls.Mode by its name.
type modeFlag rls.Mode

func (f *modeFlag) String() string { return rls.Mode(*f).String() }

func (f *modeFlag) Set(s string) error {
	m, err := rls.ParseMode(s)
	*f = modeFlag(m)
	return err
}

// addCheckReportFlags defines the flags of kuadrant.service.ratelimit.v1's
// CheckRateLimit and Report on fs, into o.
func addCheckReportFlags(fs *flag.FlagSet, o *rls.CheckReport) {
	o.MaxInFlight = defaultMaxInFlight
	fs.Var((*modeFlag)(&o.Mode), "check-report", "how CheckRateLimit and Report count: limitador (Limitador 2.4: a check charges nothing, a report charges the usage, so requests in flight overshoot a budget) or reserve (a check reserves its hits_addend, else --reserve-default, and the report settles it to the usage, giving back the rest: a budget is overshot only by what usage exceeds estimates)")
	fs.Func("reserve-default", "with --check-report reserve: what a check reserves when its hits_addend is 0, and what a report without an "+rls.ReservedEntry+" entry settles (default 1)", func(s string) error {
		n, err := parseUint32(s)
		o.DefaultEstimate = n
		return err
	})
	fs.DurationVar(&o.MaxInFlight, "reserve-max-in-flight", defaultMaxInFlight, "with --check-report reserve: the longest a request takes from its check to its report; a report gives back unused hits only from a window that began at least this long before it (0: always, which over-admits when a request straddles a window's end)")
}

// checkCheckReportFlags reports a usage error for the flags of
// addCheckReportFlags.
func checkCheckReportFlags(o *serveOptions) error {
	if o.checkReport.MaxInFlight < 0 {
		return usagef("%s %v: want 0 or more", o.sources.name("reserve-max-in-flight"), o.checkReport.MaxInFlight)
	}
	return nil
}

// warnNoAdjust logs, at start, that Report cannot be answered over a store
// that cannot charge after the fact.
func warnNoAdjust(log *slog.Logger, s counter.Store) {
	if _, ok := s.(counter.Adjuster); !ok {
		log.Warn("CheckRateLimit answers, Report answers Unavailable: this counter store cannot charge after the fact (use the memory store or --redis without --redis-approximate)")
	}
}

// errNoAdjust is the error of a Report over a store that cannot charge
// after the fact.
var errNoAdjust = errors.New("this counter store cannot charge after the fact (use the memory store or --redis without --redis-approximate)")

// Adjust bounds the inner store's Adjust as Update is bounded.
func (s boundedStore) Adjust(ctx context.Context, now time.Time, adjustments []counter.Adjustment) error {
	a, ok := s.Store.(counter.Adjuster)
	if !ok {
		return errNoAdjust
	}
	start := time.Now()
	budget := s.timeout
	if d, ok := ctx.Deadline(); ok {
		budget = s.budget(d.Sub(start))
	}
	if !s.timer {
		return a.Adjust(redis.WithDeadline(ctx, start.Add(budget)), now, adjustments)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	return a.Adjust(ctx, now, adjustments)
}

// Adjust times the inner store's Adjust and counts its errors as Update's.
func (s *instrumentedStore) Adjust(ctx context.Context, now time.Time, adjustments []counter.Adjustment) error {
	a, ok := s.Store.(counter.Adjuster)
	if !ok {
		return errNoAdjust
	}
	start := time.Now()
	err := a.Adjust(ctx, now, adjustments)
	s.m.storeLatency.Observe(time.Since(start).Seconds())
	if err != nil && ctx.Err() == nil {
		s.m.storeErrors.Inc()
		s.log.DebugContext(ctx, "store adjust failed", "err", err.Error())
	}
	return err
}

// parseUint32 parses a whole number below 2^32.
func parseUint32(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q: want a whole number from 0 to 4294967295", s)
	}
	return uint32(n), nil
}

// checkReportMetrics are the metrics of CheckRateLimit and Report, beside
// ShouldRateLimit's: Limitador's limited_calls and authorized_calls as
// calls by code, its authorized_hits as reported hits per limit.
type checkReportMetrics struct {
	calls    *prometheus.CounterVec
	reported *prometheus.CounterVec
}

func newCheckReportMetrics() checkReportMetrics {
	return checkReportMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_check_report_calls_total",
			Help: "CheckRateLimit and Report calls, by method, domain (" + unconfiguredDomain + " for domains without limits) and code: the overall code (OK, OVER_LIMIT, UNKNOWN for an empty domain) or the gRPC error's.",
		}, []string{"method", "domain", "code"}),
		reported: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_limit_reported_hits_total",
			Help: "Hits a Report charged to a limit (its hits_addend, 0 counting as 1), by domain and limit name: Limitador's authorized_hits.",
		}, []string{"domain", "limit"}),
	}
}

// observeCheckReport counts one CheckRateLimit or Report call; a check's
// counters are counted as ShouldRateLimit's (a reservation's hits, or 0 for
// Limitador's check).
func (m *serveMetrics) observeCheckReport(domain string, o rls.Outcome) {
	code := o.Code.String()
	if o.Code == codes.OK {
		code = o.Overall.String()
	}
	m.checkReport.calls.WithLabelValues(o.Method, domain, code).Inc()
	if o.Code != codes.OK {
		return
	}
	for _, c := range o.Counters {
		if o.Method == "Report" {
			m.checkReport.reported.WithLabelValues(domain, limitLabel(c)).Add(float64(c.Cost))
			continue
		}
		m.countLimit(domain, o.Overall == rlsmsg.CodeOverLimit, c)
	}
}
