package main

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{
			name: "plain",
			stat: "4242 (redis-server) S 1 4242 4242 0 -1 4194560 1 0 0 0 150 75 0 0 20 0 5 0 100 1000 10 18446744073709551615",
			want: 2250 * time.Millisecond,
		},
		{
			name: "name with spaces and parentheses",
			stat: "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1",
			want: 70 * time.Millisecond,
		},
		{name: "no name", stat: "7 R 1", wantErr: true},
		{name: "short", stat: "7 (x) R 1 2 3", wantErr: true},
		{name: "not a number", stat: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 x 4 0", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.stat))
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseStat(%q) error = %v, want error %v", tc.stat, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("parseStat(%q) = %v, want %v", tc.stat, got, tc.want)
			}
		})
	}
}

// TestCPUTimeSelf checks that this process's CPU time is read and grows
// while it computes.
func TestCPUTimeSelf(t *testing.T) {
	m := cpuMeter{pid: os.Getpid()}
	if err := m.begin(); err != nil {
		t.Fatal(err)
	}
	x := 0
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
		x++
	}
	used, err := m.end()
	if err != nil {
		t.Fatal(err)
	}
	if used <= 0 || used > 10*time.Second {
		t.Errorf("CPU time of 100ms of spinning (%d loops) = %v, want more than 0", x, used)
	}
}

func TestParseStatus(t *testing.T) {
	m, err := parseStatus([]byte("Name:\trlpkit\nVmPeak:\t  900 kB\nVmHWM:\t   64000 kB\nVmRSS:\t   51200 kB\nThreads:\t9\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.rss != 51200<<10 || m.hwm != 64000<<10 {
		t.Errorf("parseStatus = %+v, want VmRSS 51200 kB and VmHWM 64000 kB in bytes", m)
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t12 MB\nVmRSS:\t1 kB\n", "VmHWM:\tx kB\nVmRSS:\t1 kB\n"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q) = nil error, want one", bad)
		}
	}
}

// TestMemorySelf reads this process's resident set.
func TestMemorySelf(t *testing.T) {
	m, err := memoryOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.rss <= 0 || m.hwm < m.rss {
		t.Errorf("memoryOf(self) = %+v, want VmRSS > 0 and VmHWM >= VmRSS", m)
	}
}
