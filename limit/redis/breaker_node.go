package redis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// node is the health of one master of a Cluster client, as a Breaker
// knows it: the calls for its slots fail at once while it is down, those
// of the other masters go on.
type node struct {
	addr     string
	down     atomic.Pointer[outage]        // nil while up
	tripped  atomic.Pointer[chan struct{}] // closed when it is found down
	lastDial atomic.Pointer[dialFailure]   // its last dial that failed
}

func newNode(addr string) *node {
	n := &node{addr: addr}
	ch := make(chan struct{})
	n.tripped.Store(&ch)
	return n
}

// NodeHealth is one Cluster master as a Breaker knows it (see
// Breaker.Nodes).
type NodeHealth struct {
	// Addr is the master's address, host:port.
	Addr string
	// Err is nil while the master answers, else the error its calls get
	// (wrapping counter.ErrStoreDown).
	Err error
}

// Nodes returns the masters of a Cluster client that the Breaker has met
// (by a call for their slots, a dial or a probe), sorted by address, with
// each one's health; nil for other clients, whose one state is Err. A
// master that stops serving slots (a replica was promoted in its place)
// is left out once a probe sees it.
func (b *Breaker) Nodes() []NodeHealth {
	if b == nil || b.cluster == nil {
		return nil
	}
	var out []NodeHealth
	b.nodes.Range(func(_, v any) bool {
		n := v.(*node)
		h := NodeHealth{Addr: n.addr}
		if o := n.down.Load(); o != nil {
			h.Err = o.err
		}
		out = append(out, h)
		return true
	})
	slices.SortFunc(out, func(a, b NodeHealth) int { return cmp.Compare(a.Addr, b.Addr) })
	return out
}

// node returns the health of the master at addr, creating it.
func (b *Breaker) node(addr string) *node {
	if v, ok := b.nodes.Load(addr); ok {
		return v.(*node)
	}
	v, _ := b.nodes.LoadOrStore(addr, newNode(addr))
	return v.(*node)
}

// errFor is Err for a call to the master at addr ("" on other clients):
// the store's outage, else the master's.
func (b *Breaker) errFor(addr string) error {
	if b == nil {
		return nil
	}
	if o := b.down.Load(); o != nil {
		return o.err
	}
	if b.cluster == nil || addr == "" {
		return nil
	}
	if o := b.node(addr).down.Load(); o != nil {
		return o.err
	}
	return nil
}

// trippedFor returns a channel closed when the master at addr (on a
// Cluster client; else Redis) is found down, so that calls under way to
// it end then rather than wait for go-redis's dial retries; nil without a
// Breaker.
func (b *Breaker) trippedFor(addr string) <-chan struct{} {
	if b == nil {
		return nil
	}
	if b.cluster == nil || addr == "" {
		return *b.tripped.Load()
	}
	return *b.node(addr).tripped.Load()
}

// reportNode is Report for a round trip to the master at addr: on a
// Cluster client a failed dial makes that master down, not the store. An
// address that is no master the Breaker knows (a replica, a master
// replaced by a failover, which go-redis may still dial to reload its map)
// only makes it probe.
func (b *Breaker) reportNode(addr string, err error) {
	if b == nil {
		return
	}
	if b.cluster == nil || addr == "" {
		b.Report(err)
		return
	}
	v := classify(err)
	if v == verdictDown {
		if n, ok := b.nodes.Load(addr); ok {
			b.tripNode(n.(*node), err)
			return
		}
		v = verdictSuspect
	}
	switch v {
	case verdictSuspect:
		if b.suspect.CompareAndSwap(false, true) {
			b.wake()
		}
	}
}

// tripNode makes the master n down for cause, unless it is already.
func (b *Breaker) tripNode(n *node, cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || n.down.Load() != nil {
		return
	}
	b.outages++
	n.down.Store(&outage{id: b.outages, err: downError(fmt.Errorf("master %s: %w", n.addr, cause))})
	close(*n.tripped.Load())
	b.nodesDown.Add(1)
	b.wake()
	if b.onNode != nil {
		b.onNode(n.addr, false, cause)
	}
}

// nodeRecovered ends the outage was of the master n, unless another
// change came first.
func (b *Breaker) nodeRecovered(n *node, was *outage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := n.down.Load()
	if b.closed || cur == nil || cur.id != was.id || !n.down.CompareAndSwap(cur, nil) {
		return
	}
	ch := make(chan struct{})
	n.tripped.Store(&ch)
	b.nodesDown.Add(-1)
	if b.onNode != nil {
		b.onNode(n.addr, true, nil)
	}
}

// anyDown reports whether the store or one of its masters is down.
func (b *Breaker) anyDown() bool {
	return b.down.Load() != nil || b.nodesDown.Load() > 0
}

// probeCluster is Probe on a Cluster client: it reloads the slots' map and
// PINGs every master at once. Each master's answer ends or starts its own
// outage; a master that was down and no longer serves slots (its replica
// was promoted) is up again for the store, whose calls for those slots now
// go to the new master. The store itself is down only when no master
// answers (or the map cannot be loaded); the error is then the first
// master's.
func (b *Breaker) probeCluster(ctx context.Context) error {
	was := b.down.Load()
	start := time.Now()
	// Reloading the map may first try a dead node (its dial retries), so
	// it has a budget of its own; each PING then has ProbeTimeout.
	pctx, cancel := context.WithTimeout(ctx, clusterReloadBudget+b.timeout)
	type answer struct {
		addr string
		err  error
	}
	var mu sync.Mutex
	var got []answer
	err := b.cluster.ForEachMaster(pctx, func(ctx context.Context, c *goredis.Client) error {
		ctx, cancel := context.WithTimeout(ctx, b.timeout)
		err := c.Ping(ctx).Err()
		cancel()
		mu.Lock()
		got = append(got, answer{c.Options().Addr, err})
		mu.Unlock()
		return err
	})
	cancel()
	if ctx.Err() != nil {
		return fmt.Errorf("PING (within %v): %w", b.timeout, err) // the asker left
	}
	masters := make(map[string]bool, len(got))
	var firstErr error
	answered := false
	for _, a := range got {
		masters[a.addr] = true
		n := b.node(a.addr)
		if a.err == nil {
			answered = true
			if o := n.down.Load(); o != nil {
				b.nodeRecovered(n, o)
			}
			continue
		}
		cause := fmt.Errorf("PING (within %v): %w", b.timeout, n.cause(a.err, start))
		if firstErr == nil {
			firstErr = cause
		}
		if o := n.down.Load(); o == nil {
			b.tripNode(n, cause)
		} else {
			n.down.CompareAndSwap(o, &outage{id: o.id, err: downError(fmt.Errorf("master %s: %w", n.addr, cause))})
		}
	}
	if len(got) > 0 {
		b.nodes.Range(func(k, v any) bool {
			n := v.(*node)
			if masters[n.addr] {
				return true
			}
			if o := n.down.Load(); o != nil {
				b.nodeRecovered(n, o)
			}
			b.nodes.Delete(k)
			return true
		})
	}
	if answered {
		if was != nil {
			b.recovered(was)
		}
		return nil
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("PING (within %v): %w", b.timeout, cmpErr(err))
	}
	if was == nil {
		b.trip(firstErr)
	} else {
		b.down.CompareAndSwap(was, &outage{id: was.id, err: downError(firstErr)})
	}
	return firstErr
}

func cmpErr(err error) error {
	if err == nil {
		return errors.New("no master in the cluster's slots map")
	}
	return err
}

// dialFailure is the last dial of the client that failed, and when.
type dialFailure struct {
	err error
	at  time.Time
}

// cause returns what a probe's error err, started at start, should say:
// err, or, when err is only the probe's deadline and a dial failed since
// the probe started, that dial's error, the underlying reason (a refused
// connection, a socket that does not exist) rather than go-redis's
// retries running out of time.
func (b *Breaker) cause(err error, start time.Time) error {
	return dialCause(err, start, b.lastDial.Load())
}

// cause is Breaker.cause for the master n: its own dials only.
func (n *node) cause(err error, start time.Time) error {
	return dialCause(err, start, n.lastDial.Load())
}

func dialCause(err error, start time.Time, d *dialFailure) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return err
		}
	}
	if d != nil && !d.at.Before(start) {
		return d.err
	}
	return err
}

// clusterReloadBudget is the time a Cluster probe gives the reload of the
// slots' map, on top of ProbeTimeout for the PINGs.
const clusterReloadBudget = time.Second
