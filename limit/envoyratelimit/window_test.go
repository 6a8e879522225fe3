package envoyratelimit

import (
	"errors"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestLoadWindowBound: unit x unit_multiplier used to be multiplied in
// nanoseconds without a bound, so that a year x 585 loaded as a window of
// about 21 days; windows longer than counter.MaxWindow are refused, naming
// the field.
func TestLoadWindowBound(t *testing.T) {
	tests := []struct {
		unit, mult string
		window     time.Duration // 0: refused
		err        string
	}{
		{"year", "136", 136 * 365 * 24 * time.Hour, ""},
		{"second", "4294967295", counter.MaxWindow, ""},
		{"year", "137", 0, "config.f.yaml:4: descriptors[0].rate_limit.unit_multiplier: unit_multiplier 137 makes a window of 137 years, longer than the longest window, 4294967295 seconds (about 136 years)"},
		{"year", "585", 0, "config.f.yaml:4: descriptors[0].rate_limit.unit_multiplier: unit_multiplier 585 makes a window of 585 years, longer than the longest window, 4294967295 seconds (about 136 years)"},
		{"minute", "4294967295", 0, "config.f.yaml:4: descriptors[0].rate_limit.unit_multiplier: unit_multiplier 4294967295 makes a window of 4294967295 minutes, longer than the longest window, 4294967295 seconds (about 136 years)"},
	}
	for _, tc := range tests {
		t.Run(tc.unit+"x"+tc.mult, func(t *testing.T) {
			src := "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: " + tc.unit + ", requests_per_unit: 1, unit_multiplier: " + tc.mult + "}\n"
			cfg, err := Load([]File{{Key: "config.f.yaml", Data: []byte(src)}}, LoadOptions{})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Load = %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Domain("d").Descriptors()[0].Limits[0].Window(); got != tc.window {
				t.Fatalf("Window() = %v, want %v", got, tc.window)
			}
		})
	}
}

// TestEvaluateOverrideWindowBound: an override of year x 300 used to reach
// the store, which refused the window: the request was answered
// Unavailable. It is an invalid request now, naming the field.
func TestEvaluateOverrideWindowBound(t *testing.T) {
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustLoad(t, "domain: d\ndescriptors:\n- key: k\n")
	override := func(mult uint32) *Request {
		d := desc("k", "v")
		d.Limit = &Override{RequestsPerUnit: 1, Unit: UnitYear, UnitMultiplier: &mult}
		r := req(d)
		return &r
	}
	_, err = evaluate(ev, cfg, t0, override(300))
	var ie *limit.InvalidRequestError
	const want = "invalid request: descriptors[0].limit.unit_multiplier: 300 YEAR windows are longer than the longest window, 4294967295 seconds (about 136 years)"
	if !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("Evaluate(year x 300) = %v\nwant a *limit.InvalidRequestError %q", err, want)
	}
	if _, err := evaluate(ev, cfg, t0, override(136)); err != nil {
		t.Fatalf("Evaluate(year x 136) = %v, want an answer", err)
	}
}
