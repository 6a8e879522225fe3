package envoyratelimit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rlpkit/rlpkit/limit/counter"
)

const quotaConfig = `domain: d
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: zero
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: free
    rate_limit: {unlimited: true}
  - key: q
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: qshadow
    quota_mode: true
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: qmulti
    quota_mode: true
    rate_limits:
      - {name: a, unit: minute, requests_per_unit: 0}
      - {name: b, unit: hour, requests_per_unit: 5}
`

func newQuotaEvaluator(t *testing.T, o Options) *Evaluator {
	t.Helper()
	o.Store = counter.NewMemoryStore(counter.MemoryOptions{})
	ev, err := NewEvaluator(o)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestEvaluateQuotaMode: quota descriptors are counted per descriptor, as
// the reference counts them: a request is over when a descriptor that is
// not a quota is over, or when every quota descriptor is over.
func TestEvaluateQuotaMode(t *testing.T) {
	cfg := mustLoad(t, quotaConfig)
	tests := []struct {
		name  string
		steps []step
	}{
		{"the only quota descriptor over: over", []step{
			{0, req(desc("q", "x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("q", "x"), desc("user", "u")), resp(OVER, lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 2, UnitMinute, 2, 50*sec)), ""},
		}},
		{"a quota descriptor over while another has room: OK, and the others count", []step{
			{0, req(desc("q", "x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("q", "x"), desc("q", "y"), desc("user", "u")), resp(OK, lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 2, UnitMinute, 1, 50*sec)), ""},
			// The request was let through: q=y and user=u were counted.
			{0, req(desc("q", "y")), resp(OVER, lim(OVER, "", 1, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("user", "u")), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
		}},
		{"a quota rule in shadow mode is never over", []step{
			{0, req(desc("qshadow", "x")), resp(OK, lim(OK, "", 0, UnitMinute, 0, 50*sec)), ""},
		}},
		{"several limits of one quota descriptor are one quota", []step{
			{0, req(desc("qmulti", "x")), resp(OVER, lim(OVER, "a", 0, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("qmulti", "x"), desc("q", "y")), resp(OK, lim(OVER, "a", 0, UnitMinute, 0, 50*sec), lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run(t, newQuotaEvaluator(t, Options{}), cfg, tc.steps)
		})
	}
}

// TestEvaluateGlobalQuotaMode: with QUOTA_MODE every descriptor but the
// unlimited ones is a quota, the unmatched ones too, as in the reference.
func TestEvaluateGlobalQuotaMode(t *testing.T) {
	cfg := mustLoad(t, quotaConfig)
	tests := []struct {
		name  string
		steps []step
	}{
		{"every descriptor over: over", []step{
			{0, req(desc("zero", "x")), resp(OVER, lim(OVER, "", 0, UnitSecond, 0, sec)), ""},
		}},
		{"an unlimited descriptor is no quota", []step{
			{0, req(desc("zero", "x"), desc("free", "y")), resp(OVER, lim(OVER, "", 0, UnitSecond, 0, sec), Status{Code: OK, LimitRemaining: 1<<32 - 1}), ""},
		}},
		{"an unmatched descriptor is a quota with room", []step{
			{0, req(desc("zero", "x"), desc("none", "y")), resp(OK, lim(OVER, "", 0, UnitSecond, 0, sec), ok()), ""},
		}},
		{"one over, one with room: OK, the one with room counted", []step{
			{0, req(desc("zero", "x"), desc("user", "u")), resp(OK, lim(OVER, "", 0, UnitSecond, 0, sec), lim(OK, "", 2, UnitMinute, 1, 50*sec)), ""},
			{0, req(desc("user", "u")), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("user", "u")), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run(t, newQuotaEvaluator(t, Options{QuotaMode: true}), cfg, tc.steps)
		})
	}
}

// TestEvaluateReportsQuotas: Result.Quota says which descriptors are
// quotas (for the reference's pick of the RateLimit headers): the
// quota_mode rule's, or with Options.QuotaMode every one but the
// unlimited; nothing when none is.
func TestEvaluateReportsQuotas(t *testing.T) {
	cfg := mustLoad(t, quotaConfig)
	for _, tc := range []struct {
		name string
		o    Options
		req  Request
		want []bool
	}{
		{"no quota", Options{}, req(desc("user", "u"), desc("free", "f")), nil},
		{"a quota rule", Options{}, req(desc("user", "u"), desc("q", "x")), []bool{false, true}},
		{"QUOTA_MODE", Options{QuotaMode: true}, req(desc("user", "u"), desc("free", "f")), []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evaluate(newQuotaEvaluator(t, tc.o), cfg, t0, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Quota, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Quota (-want +got):\n%s", diff)
			}
		})
	}
}
