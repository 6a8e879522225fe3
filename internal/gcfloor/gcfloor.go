package gcfloor

import (
	"math/bits"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the allocation, in bytes, that Start lets happen between
// two collections at least: 32 MiB.
const DefaultFloor = 32 << 20

// basePercent is GOGC's default, which Start never goes below.
const basePercent = 100

// liveMetric is the heap the last collection found live; GOGC applies to it plus the GC
// roots, the goroutine stacks and globals it scans (stackMetric, globalsMetric).
const (
	liveMetric    = "/gc/heap/live:bytes"
	stackMetric   = "/gc/scan/stack:bytes"
	globalsMetric = "/gc/scan/globals:bytes"
)

// gcBase returns what GOGC is a percentage of: the live heap the last collection left
// plus the stacks and globals it scanned. With the live heap alone, a server whose stacks
// outweigh its heap (many HTTP/2 streams in flight) would get a goal several floors above
// its live heap.
func gcBase() uint64 {
	samples := []metrics.Sample{{Name: liveMetric}, {Name: stackMetric}, {Name: globalsMetric}}
	metrics.Read(samples)
	var base uint64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			base += s.Value.Uint64()
		}
	}
	return base
}

// Start keeps, after every garbage collection, GOGC at
// max(100, floor*100/live) for what that collection left (gcBase: the live heap, stacks
// and globals), unless
// lookupEnv (os.LookupEnv) reports GOGC or GOMEMLIMIT set. It returns a
// function that stops it and restores GOGC to 100; call Start once per
// process, from main.
func Start(floor uint64, lookupEnv func(string) (string, bool)) (stop func()) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := lookupEnv(v); set {
			return func() {}
		}
	}
	t := &tuner{floor: floor}
	t.tune()
	t.arm()
	return t.stop
}

// tuner sets GOGC after each collection, from a finalizer: the runtime runs
// the finalizers of the objects a cycle found unreachable after that cycle,
// so a sentinel armed anew each time runs once per cycle.
type tuner struct {
	floor   uint64
	mu      sync.Mutex
	stopped bool
}

// sentinel carries a pointer so that it is not a tiny allocation, whose
// finalizer might never run.
type sentinel struct{ t *tuner }

func (t *tuner) arm() {
	runtime.SetFinalizer(&sentinel{t: t}, func(s *sentinel) {
		if s.t.tune() {
			s.t.arm()
		}
	})
}

// tune sets GOGC for the live heap the last collection left and reports
// whether the tuner still runs.
func (t *tuner) tune() bool {
	live := gcBase()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	debug.SetGCPercent(percentFor(t.floor, live))
	return true
}

// heapMinimum is the Go runtime's smallest heap goal at GOGC=100; it scales with GOGC, so
// that the goal is never below heapMinimum*GOGC/100.
const heapMinimum = 4 << 20

// percentFor is the GOGC that lets floor bytes be allocated over a base (live heap, stacks
// and globals) of live bytes before the next collection, at least 100. It is at most
// floor*100/heapMinimum: the runtime's minimum heap goal grows with GOGC, and a higher GOGC
// would set the goal above the floor for a small live heap (GOGC 3200 would mean a 128 MiB
// goal). Bases within 1/8 of each other share a value, so that the heap goal does not move
// with every small change of the live heap.
func percentFor(floor, live uint64) int {
	live = max(live, 1<<20)
	// Round live up to a step of 1/8 of its power of two.
	step := uint64(1) << (63 - bits.LeadingZeros64(live) - 3)
	live = (live + step - 1) / step * step
	return int(max(basePercent, min(floor*100/live, floor*100/heapMinimum)))
}

func (t *tuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(basePercent)
	}
}
