package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestPacerSlots spreads 1,000 calls per second over 3 callers: together
// their slots are a millisecond apart, caller w's every third from w ms.
func TestPacerSlots(t *testing.T) {
	start := time.Unix(1000, 0)
	p := newPacer(start, 1000, 3)
	var got []time.Duration
	for k := range 4 {
		for w := range 3 {
			got = append(got, p.slot(w, k).Sub(start))
		}
	}
	for i, d := range got {
		if want := time.Duration(i) * time.Millisecond; d != want {
			t.Errorf("slot %d (caller %d, call %d) at %v, want %v", i, i%3, i/3, d, want)
		}
	}
	if p := newPacer(start, 0, 3); p != nil {
		t.Errorf("newPacer(rate 0) = %+v, want nil (a closed loop)", p)
	}
}

// TestPacerWait returns a slot already past as the instant latency counts
// from, the zero time (count from the send) after waiting for a slot to
// come, and not ok for a slot past the end of the phase.
func TestPacerWait(t *testing.T) {
	start := time.Now()
	p := newPacer(start, 100, 1) // slots 10 ms apart
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if late, ok := p.wait(ctx, 0, 0); !ok || !late.Equal(start) {
		t.Errorf("wait for the first slot, passed: %v, %v; want the slot %v, ok", late, ok, start)
	}
	if late, ok := p.wait(ctx, 0, 1); !ok || !late.IsZero() || time.Now().Before(p.slot(0, 1)) {
		t.Errorf("wait for the second slot, to come: %v, %v, returned at %v; want the zero time, ok, at %v or later", late, ok, time.Now(), p.slot(0, 1))
	}
	if _, ok := p.wait(ctx, 0, 200); ok { // 2 s on
		t.Errorf("wait for a slot after the phase's end: ok, want not ok")
	}
}

// TestLoadRate offers 400 calls per second for 250 ms: no more calls than
// slots within the phase are sent, however fast the server, and the report
// says what was offered.
func TestLoadRate(t *testing.T) {
	addr := serve(t, 1_000_000)
	const rate, d = 400.0, 250 * time.Millisecond
	c := config{addr: addr, duration: d, timeout: time.Second, concurrency: 4, conns: 2, users: 10, descriptors: 1, domain: "load", rate: rate}
	r, err := load(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if slots := int(math.Ceil(rate * d.Seconds())); r.calls == 0 || r.calls > slots {
		t.Errorf("load at %v/s for %v: %d calls, want 1 to %d", rate, d, r.calls, slots)
	}
	var out bytes.Buffer
	r.print(&out)
	if !strings.Contains(out.String(), "(400/s offered, at most 4 in flight, 1 descriptors each)") {
		t.Errorf("report does not say the rate offered:\n%s", out.String())
	}
}

func TestRateUsage(t *testing.T) {
	for _, rate := range []string{"-1", "NaN", "2e9", "1e-4"} {
		var stdout, stderr bytes.Buffer
		args := []string{"-rate", rate}
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-rate 0 or from 0.001 to 1e+09") {
			t.Errorf("run(%v) = %d, stderr %q; want 2 and the range of -rate", args, code, stderr.String())
		}
	}
}
