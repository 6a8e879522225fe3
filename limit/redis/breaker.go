package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// Defaults of BreakerOptions.
const (
	// DefaultProbeInterval is the wait before the first probe once Redis
	// is known down; it doubles after each failed probe.
	DefaultProbeInterval = 100 * time.Millisecond
	// DefaultMaxProbeInterval bounds the wait between probes while Redis
	// is down, so an outage is known to be over at most this long after
	// Redis answers again.
	DefaultMaxProbeInterval = 2 * time.Second
	// DefaultProbeTimeout bounds one probe.
	DefaultProbeTimeout = 500 * time.Millisecond
	// DefaultCheckInterval is how often Redis is probed while it is up.
	DefaultCheckInterval = 5 * time.Second
)

// BreakerOptions configures a Breaker. The zero value gives the defaults.
type BreakerOptions struct {
	// ProbeInterval is how long after Redis is found down the first probe
	// runs; each probe that fails doubles the wait, up to MaxProbeInterval.
	// 0 means DefaultProbeInterval.
	ProbeInterval time.Duration
	// MaxProbeInterval bounds the wait between probes while Redis is down;
	// 0 means DefaultMaxProbeInterval (or ProbeInterval, when larger).
	MaxProbeInterval time.Duration
	// ProbeTimeout bounds one probe: a PING (on a Cluster, a PING of every
	// master; on a Ring, of every shard). 0 means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// CheckInterval is how often Redis is probed while it is up, so that
	// an outage is known without traffic; 0 means DefaultCheckInterval, a
	// negative interval never.
	CheckInterval time.Duration
	// OnChange, when set, is called once when Redis is found down (up
	// false, with the error that showed it) and once when a probe finds it
	// up again (true, nil): one call per change, in order. It is called
	// with the change made, from the goroutine that found it (an Update's,
	// a probe's), and must not block nor call the Breaker's methods other
	// than Err.
	OnChange func(up bool, err error)
	// OnNodeChange, when set, is called on a Cluster client once when a
	// master is found down (up false, with the error that showed it) and
	// once when its slots answer again (true, nil): it answers a probe, or
	// it no longer serves any slot, a replica having been promoted in its
	// place. The same rules as OnChange hold. Other clients have one node,
	// the store, whose changes are OnChange's.
	OnNodeChange func(node string, up bool, err error)
}

// Breaker knows whether a Redis answers, so that the stores on it fail at
// once while it does not: after an Update (or a flush of limit/redis/cached)
// fails for a reason that shows Redis cannot be reached, every Update
// returns an error wrapping counter.ErrStoreDown without a round trip, and
// a probe in the background (a PING, after ProbeInterval, then at doubling
// intervals up to MaxProbeInterval) ends the outage when Redis answers.
//
// What counts as down: a dial that fails (refused, unreachable, a failed
// name lookup), from a store's round trip or from any dial of the client
// (NewBreaker watches them), and a probe that fails. A Redis that
// answers with an error (a script error, a wrong type, LOADING) is up: its
// answer came at once. A call whose caller canceled it says nothing. A
// timeout (the caller's deadline, a read timeout, a pool wait) shows a
// slow Redis rather than a dead one, and a connection that ends or is
// reset under a call may be one the pool kept from before a restart of
// Redis: either makes the Breaker probe at once (at most once per
// ProbeInterval), and only a probe that fails within ProbeTimeout makes it
// down. A Redis that is gone refuses the next dial (the probe's or a
// call's), so it is still known down at once; a stale connection after a
// restart fails its own call and no other. A probe that fails while Redis
// is up (CheckInterval, Probe) makes it down too.
//
// A successful probe ends an outage at once: there is no half-open state
// where one trial call goes first. The PING crossed the client, pool,
// dialer, TLS and authentication the calls use, and a store's concurrent
// calls share pipelines (see Store), so a recovering Redis sees a few
// round trips, not a stampede; a trial call, on the other hand, would keep
// a server that gets no traffic (readiness failing, so no traffic routed
// to it) down forever.
//
// On a Cluster client the health is kept per master (see Nodes): a failed
// dial to one master, or its probe failing, makes that master down, and
// only the calls for its slots fail at once; the others go on. Each probe
// reloads the Cluster's map of slots and PINGs every master, so that once
// a replica is promoted in a dead master's place the calls for its slots
// go to the new master and answer again. The store as a whole (Err) is
// down only when no master answers.
//
// A call under way to a master (or a Redis) when it is found down ends
// then with the Breaker's error, rather than waiting for go-redis's dial
// retries and their backoff: what bounds it is its own deadline and the
// first failed dial.
//
// Err, the check on every Update, is one atomic load. A nil *Breaker is
// always up and ignores reports. A Breaker runs one goroutine until Close;
// close it before its client. It is safe for concurrent use; create it
// with NewBreaker and share it between the stores of one client.
type Breaker struct {
	client   goredis.UniversalClient
	ping     func(context.Context) error
	interval time.Duration // ProbeInterval
	maxWait  time.Duration // MaxProbeInterval
	timeout  time.Duration // ProbeTimeout
	check    time.Duration // CheckInterval; <= 0: none
	onChange func(up bool, err error)
	onNode   func(node string, up bool, err error)
	cluster  *goredis.ClusterClient               // non-nil: health per master too
	after    func(time.Duration) <-chan time.Time // the loop's timer; tests replace it

	down      atomic.Pointer[outage]        // nil while up
	tripped   atomic.Pointer[chan struct{}] // closed when found down
	suspect   atomic.Bool                   // a timeout asks for a probe now
	nodes     sync.Map                      // Cluster: master address -> *node
	nodesDown atomic.Int32                  // Cluster: masters down
	lastDial  atomic.Pointer[dialFailure]   // the last dial that failed

	mu      sync.Mutex // orders changes of state and their OnChange calls
	closed  bool
	outages uint64 // counts the outages, to tell them apart

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	kick   chan struct{} // capacity 1: the state changed, recompute the wait
	done   chan struct{} // closed when the loop has returned
}

// outage is one period of Redis being down: the error Err returns. A
// probe failing during it gives it a new error, with the same id.
type outage struct {
	id  uint64
	err error
}

// NewBreaker returns a Breaker for client and starts its probe loop.
// client must be the client of the stores the Breaker is given to.
//
// It adds a hook to client (to every node a Cluster or Ring client makes
// from now on) that reports each failed dial: an outage is then known at
// the first refused connection, while the call that met it still waits
// for go-redis's retries. Create the Breaker before the client's first
// command.
func NewBreaker(client goredis.UniversalClient, o BreakerOptions) (*Breaker, error) {
	b, err := newBreaker(client, o, time.After)
	if err != nil {
		return nil, err
	}
	b.watchDials()
	go b.loop()
	return b, nil
}

// watchDials adds a dialReporter to b's client, or to every node it makes.
func (b *Breaker) watchDials() {
	hook := dialReporter{b}
	switch c := b.client.(type) {
	case *goredis.ClusterClient:
		c.OnNewNode(func(n *goredis.Client) { n.AddHook(hook) })
	case *goredis.Ring:
		c.OnNewNode(func(n *goredis.Client) { n.AddHook(hook) })
	default:
		c.AddHook(hook)
	}
}

// dialReporter is the go-redis hook a Breaker adds to its client: a dial
// that fails is reported at once.
type dialReporter struct{ b *Breaker }

func (h dialReporter) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			d := &dialFailure{err: err, at: time.Now()}
			if h.b.cluster == nil {
				h.b.lastDial.Store(d)
			} else if n, ok := h.b.nodes.Load(addr); ok {
				n.(*node).lastDial.Store(d)
			}
			h.b.reportNode(addr, err)
		}
		return conn, err
	}
}

func (dialReporter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }

func (dialReporter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

// newBreaker returns a Breaker whose loop, once started, waits with after.
func newBreaker(client goredis.UniversalClient, o BreakerOptions, after func(time.Duration) <-chan time.Time) (*Breaker, error) {
	var errs []error
	if client == nil {
		errs = append(errs, errors.New("limit/redis: breaker: nil client"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"probe interval", o.ProbeInterval}, {"max probe interval", o.MaxProbeInterval}, {"probe timeout", o.ProbeTimeout}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("limit/redis: breaker: negative %s %v", d.name, d.v))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	interval := orDefault(o.ProbeInterval, DefaultProbeInterval)
	ctx, cancel := context.WithCancel(context.Background())
	cluster, _ := client.(*goredis.ClusterClient)
	b := &Breaker{
		client:   client,
		ping:     pinger(client),
		interval: interval,
		maxWait:  max(interval, orDefault(o.MaxProbeInterval, DefaultMaxProbeInterval)),
		timeout:  orDefault(o.ProbeTimeout, DefaultProbeTimeout),
		check:    orDefault(o.CheckInterval, DefaultCheckInterval),
		onChange: o.OnChange,
		onNode:   o.OnNodeChange,
		cluster:  cluster,
		after:    after,
		ctx:      ctx,
		cancel:   cancel,
		kick:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	ch := make(chan struct{})
	b.tripped.Store(&ch)
	return b, nil
}

func orDefault(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// pinger returns the probe of client: a PING, of every master on a
// Cluster and of every shard on a Ring.
func pinger(client goredis.UniversalClient) func(context.Context) error {
	pingOne := func(ctx context.Context, c *goredis.Client) error { return c.Ping(ctx).Err() }
	switch c := client.(type) {
	case *goredis.ClusterClient:
		return func(ctx context.Context) error { return c.ForEachMaster(ctx, pingOne) }
	case *goredis.Ring:
		return func(ctx context.Context) error { return c.ForEachShard(ctx, pingOne) }
	}
	return func(ctx context.Context) error { return client.Ping(ctx).Err() }
}

// Err returns nil while Redis is up, and while it is down the error an
// Update answers: it wraps counter.ErrStoreDown and names the failure that
// showed the outage (or the last probe's). It is one atomic load.
func (b *Breaker) Err() error {
	if b == nil {
		return nil
	}
	if o := b.down.Load(); o != nil {
		return o.err
	}
	return nil
}

// Report tells the Breaker how a round trip to its Redis ended (nil: it
// answered). The stores on it report every failed one; a program sending
// its own commands on the client may report them too. An error of the
// connection makes the Breaker down; a timeout makes it probe at once; any
// other error, and a success, change nothing (see Breaker). On a Cluster
// client a failed dial makes down the master it was for.
func (b *Breaker) Report(err error) {
	if b == nil {
		return
	}
	v := classify(err)
	if b.cluster != nil && v == verdictDown {
		// One master's failure: the one whose dial failed, else probe all.
		var op *net.OpError
		if errors.As(err, &op) && op.Addr != nil {
			b.reportNode(op.Addr.String(), err)
			return
		}
		v = verdictSuspect
	}
	switch v {
	case verdictDown:
		b.trip(err)
	case verdictSuspect:
		if b.down.Load() == nil && b.suspect.CompareAndSwap(false, true) {
			b.wake()
		}
	}
}

// Probe PINGs Redis now, within ProbeTimeout and ctx, and returns the
// PING's error. A success ends an outage; a failure (any error, a timeout
// included, but not the end of ctx) makes the Breaker down.
//
// On a Cluster client it reloads the map of slots and PINGs every master,
// each answer deciding that master's health; it returns nil when one
// answers (see Breaker). When a PING runs out of time because the dials
// under it failed, the error names the dial's failure.
func (b *Breaker) Probe(ctx context.Context) error {
	if b.cluster != nil {
		return b.probeCluster(ctx)
	}
	was := b.down.Load()
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, b.timeout)
	err := b.ping(pctx)
	cancel()
	if err == nil {
		if was != nil {
			b.recovered(was)
		}
		return nil
	}
	err = fmt.Errorf("PING (within %v): %w", b.timeout, b.cause(err, start))
	if ctx.Err() != nil {
		return err // the asker left: the answer says nothing about Redis
	}
	if was == nil {
		b.trip(err)
	} else {
		b.down.CompareAndSwap(was, &outage{id: was.id, err: downError(err)}) // the latest reason, no new outage
	}
	return err
}

// Close stops the probe loop and waits for it (a probe under way is
// canceled). The state stays as it was; reports after Close change
// nothing. Closing a nil Breaker does nothing.
func (b *Breaker) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	<-b.done
}

// trip makes the Breaker down for cause, unless it is already.
func (b *Breaker) trip(cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.down.Load() != nil {
		return
	}
	b.outages++
	b.down.Store(&outage{id: b.outages, err: downError(cause)})
	close(*b.tripped.Load())
	b.wake()
	if b.onChange != nil {
		b.onChange(false, cause)
	}
}

// recovered ends the outage was, unless another change came first: it
// is over, or another outage began. A probe that failed meanwhile, having
// started during was, only gave was a new error: was still ends.
func (b *Breaker) recovered(was *outage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.down.Load()
	if b.closed || cur == nil || cur.id != was.id || !b.down.CompareAndSwap(cur, nil) {
		return
	}
	b.suspect.Store(false)
	ch := make(chan struct{})
	b.tripped.Store(&ch)
	if b.onChange != nil {
		b.onChange(true, nil)
	}
}

// wake makes the loop recompute its wait.
func (b *Breaker) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func downError(cause error) error {
	return fmt.Errorf("limit/redis: %w, not tried until a probe answers: %v", counter.ErrStoreDown, cause)
}
