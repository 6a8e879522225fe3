package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeReport is a run of calls decisions in one second with every latency
// lat, the server and Redis using the given CPU time.
func fakeReport(calls int, lat, server, redis time.Duration) *report {
	r := &report{calls: calls, ok: calls, elapsed: time.Second, serverCPU: server, redisCPU: redis,
		redis: &redisStats{total: 4 * calls, commands: []commandCount{{"evalsha", calls}, {"get", calls}, {"set", calls}, {"time", calls}}, reads: calls / 5}}
	for range calls {
		r.latencies = append(r.latencies, lat)
	}
	return r
}

// TestPrintMedians checks the medians over rounds and the ratios to the
// first binary's.
func TestPrintMedians(t *testing.T) {
	c := comparison{bins: []string{"/tmp/old", "/tmp/new"}, rounds: 3}
	reports := [][]*report{
		{fakeReport(1000, time.Millisecond, 100*time.Millisecond, 40*time.Millisecond), fakeReport(900, 3*time.Millisecond, 90*time.Millisecond, 27*time.Millisecond), fakeReport(1100, 2*time.Millisecond, 88*time.Millisecond, 22*time.Millisecond)},
		{fakeReport(2000, time.Millisecond, 100*time.Millisecond, 20*time.Millisecond), fakeReport(1800, time.Millisecond, 90*time.Millisecond, 18*time.Millisecond), fakeReport(2200, time.Millisecond, 110*time.Millisecond, 22*time.Millisecond)},
	}
	var out bytes.Buffer
	printMedians(&out, c, reports)
	want := []string{
		"medians of 3 rounds | A=old | B=new | B/A | ",
		"--- | --- | --- | ---",
		"decisions/s | 1000 | 2000 | 2.00 | ",
		"p50 latency (us) | 2000 | 1000 | 0.50 | ",
		"p99 latency (us) | 2000 | 1000 | 0.50 | ",
		"server CPU per decision (us) | 100 | 50.00 | 0.50 | ",
		"Redis CPU per decision (us) | 30.00 | 10.00 | 0.33 | ",
		"server + Redis CPU per decision (us) | 130 | 60.00 | 0.46 | ",
		"Redis commands per decision | 4.00 | 4.00 | 1.00 | ",
		"Redis script calls per decision | 1.00 | 1.00 | 1.00 | ",
		"Redis reads (round trips) per decision | 0.20 | 0.20 | 1.00 | ",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")); diff != "" {
		t.Errorf("printMedians (-want +got):\n%s", diff)
	}
}
