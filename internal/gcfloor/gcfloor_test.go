package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	tests := []struct {
		name        string
		floor, live uint64
		want        int
	}{
		{"a live heap of 8 MiB", 32 << 20, 8 << 20, 400},
		{"within 1/8 above shares the value", 32 << 20, 8<<20 + 400<<10, 355},
		{"the next step", 32 << 20, 9<<20 + 100<<10, 320},
		// The runtime's minimum goal is 4 MiB * GOGC/100: GOGC 800 makes it the floor.
		{"a small live heap: the minimum goal caps it", 32 << 20, 2 << 20, 800},
		{"below 1 MiB", 32 << 20, 10 << 10, 800},
		{"nothing live yet", 32 << 20, 0, 800},
		{"a live heap above the floor keeps 100", 32 << 20, 64 << 20, 100},
		{"a live heap at the floor keeps 100", 32 << 20, 32 << 20, 100},
		{"no floor", 0, 2 << 20, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentFor(tt.floor, tt.live); got != tt.want {
				t.Errorf("percentFor(%d, %d) = %d, want %d", tt.floor, tt.live, got, tt.want)
			}
		})
	}
}

// gogc returns GOGC as the runtime has it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// waitGOGC collects garbage until GOGC is want (or above basePercent for
// want 0), or fails after 5 s.
func waitGOGC(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for got := gogc(); want == 0 && got <= basePercent || want != 0 && got != want; got = gogc() {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC = %d after 5 s of collections, want %d (0: above %d)", got, want, basePercent)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStart raises GOGC for this test binary's small live heap, keeps it up
// across collections, and restores 100 when stopped. The tests change the
// process's GOGC and do not run in parallel.
func TestStart(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(basePercent))
	noEnv := func(string) (string, bool) { return "", false }
	const floor = 1 << 30 // far above this binary's live heap
	stop := Start(floor, noEnv)
	runtime.GC()
	want := percentFor(floor, gcBase())
	if want <= basePercent {
		t.Fatalf("percentFor(%d, %d) = %d: the test needs a live heap far below the floor", floor, gcBase(), want)
	}
	waitGOGC(t, want)
	// A later cycle still finds the tuner armed: it sets GOGC again after
	// someone else did.
	debug.SetGCPercent(basePercent)
	waitGOGC(t, 0)
	stop()
	if got := gogc(); got != basePercent {
		t.Errorf("GOGC after stop = %d, want %d", got, basePercent)
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := gogc(); got != basePercent {
		t.Errorf("GOGC after stop and two collections = %d, want %d: the tuner still runs", got, basePercent)
	}
}

// TestStartLeavesOperatorSettings: with GOGC or GOMEMLIMIT in the
// environment, Start changes nothing.
func TestStartLeavesOperatorSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(basePercent))
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		env := func(k string) (string, bool) { return "x", k == v }
		stop := Start(1<<30, env)
		runtime.GC()
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		if got := gogc(); got != basePercent {
			t.Errorf("with %s set, GOGC = %d, want %d", v, got, basePercent)
		}
		stop()
	}
}

// TestBaseCountsStacks: GOGC is a percentage of the live heap plus the stacks and globals,
// so the floor's base counts them: with goroutines holding large stacks, the base exceeds
// the live heap by at least their size (else the heap goal would be floor*(1+stacks/live)
// above the live heap).
func TestBaseCountsStacks(t *testing.T) {
	const n, depth = 64, 64 << 10 // 64 goroutines, each with a stack of at least 64 KiB
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		go func() { deepStack(depth, &started, release) }()
	}
	started.Wait()
	defer close(release)
	runtime.GC()
	live := []metrics.Sample{{Name: liveMetric}}
	metrics.Read(live)
	if got, min := gcBase(), live[0].Value.Uint64()+n*depth; got < min {
		t.Errorf("gcBase() = %d, want at least the live heap %d plus %d goroutines' stacks of %d bytes", got, live[0].Value.Uint64(), n, depth)
	}
}

// deepStack grows the goroutine's stack past size bytes, then waits for release.
func deepStack(size int, started *sync.WaitGroup, release chan struct{}) {
	var pad [1024]byte
	if size > 0 {
		pad[0] = byte(size)
		deepStack(size-len(pad), started, release)
		runtime.KeepAlive(pad)
		return
	}
	started.Done()
	<-release
}
