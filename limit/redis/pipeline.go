package redis

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultPipelines is how many pipelines of script calls a Store keeps in
// flight at once, unless Options.Pipelines says otherwise. One gives the
// largest pipelines, so the least CPU per decision in the client and in
// Redis; more can help over a link whose round trip is long next to
// Redis's time per pipeline. On a loopback a second pipeline splits the
// calls that would have shared one round trip, so it costs CPU per decision.
const DefaultPipelines = 1

// pipeliner sends the script calls of concurrent Updates to Redis together,
// in one pipeline (one write, one read on each side), instead of one
// request and one reply per call, and the calls that can share a script
// call in one (see combiner): Redis and the client then spend their system
// calls, event-loop turns, command encoding and reply parsing on many
// decisions at once. Each call is still decided all or nothing, in arrival
// order, and waits for one round trip: the pipeline it is sent in.
//
// No goroutine waits idle and, without a window (see window.go), no timer
// delays a call. A call that finds fewer than max pipelines in flight and
// no other call waiting takes a turn and yields its processor once, so
// that the goroutines ready to run go first; then it is sent alone, from
// its own goroutine and under its own context's deadline and values (ended
// by the Breaker, see tripContext), as without a pipeliner, or,
// when calls queued meanwhile, it goes first in the queue and hands its
// turn to a sender (see gather). Calls that arrive while max pipelines are
// in flight wait in a queue; a sender that finishes takes the whole queue
// as its next pipeline, and stops when it finds the queue empty. A caller
// whose context ends while its call waits returns at once; its call is
// then not sent, or, when already sent, its result is dropped (the script
// may have counted it, as with a reply lost to a dropped connection). So a
// queued call owns its keys (see call): the one its caller asked for is
// the one sent, whatever the caller's memory holds after it returned.
type pipeliner struct {
	client  goredis.UniversalClient
	max     int
	per     int           // requests per script call, at most
	sharded bool          // only calls of one hash tag share a script call
	breaker *Breaker      // nil: none; a pipeline is not sent while it is down
	addr    string        // the Cluster master the calls go to; "" for other clients
	ack     ack           // Options.AckReplicas: WAIT after each pipeline
	window  time.Duration // Options.Window: 0, none (see window.go)

	mu       sync.Mutex
	queue    []*call
	spare    []*call   // the previous queue's array, to reuse
	inFlight int       // pipelines being sent, at most max
	senders  []*sender // the scratch of senders that finished, to reuse
	timer    stopper   // the window open over the queue; nil: none
	gen      uint64    // counts the windows opened, so that a stale one is ignored
}

// call is one script run: its keys and arguments, then its reply. The
// fields are written by the sender before done is signalled.
//
// A queued call is serialised by a sender, possibly after its caller gave
// up and returned, so it must own what it sends: keys that may alias the
// caller's memory (borrowed) are copied into kbuf when the call is queued.
// The args must be the call's own already. A call sent at once by its own
// goroutine is done with before do returns, and copies nothing.
type call struct {
	ctx      context.Context
	script   *goredis.Script
	keys     []string // the call's slice; with borrowed, its strings may be the caller's
	borrowed bool
	args     []string // ARGV: "" then the request's numbers (see fixed.lua)
	result
	err  error
	done chan struct{} // capacity 1
	kbuf []byte        // the keys' bytes once owned, reused with the call
	eval evalArgs      // the command's arguments when sent at once
	tctx tripContext   // the context of a call sent at once, with a Breaker
}

// own points c's keys at copies in kbuf, when they are borrowed.
func (c *call) own() {
	if !c.borrowed {
		return
	}
	n := 0
	for _, k := range c.keys {
		n += len(k)
	}
	buf := slices.Grow(c.kbuf[:0], n)
	for i, k := range c.keys {
		if k == "" {
			continue
		}
		start := len(buf)
		buf = append(buf, k...) // within the capacity: the strings below stay valid
		c.keys[i] = unsafe.String(&buf[start], len(k))
	}
	c.kbuf, c.borrowed = buf, false
}

// afterYield, when set, is called by a call that took a turn finding no
// call waiting, once it has yielded and before it looks at the queue. Only
// tests set it, to let calls queue there.
var afterYield func()

// beforeExec, when set, is called by a sender after it has picked the
// calls of a pipeline whose callers still wait and before it queues and
// sends them. Only tests set it, to hold a pipeline there.
var beforeExec func()

func newPipeliner(client goredis.UniversalClient, max, per int, sharded bool, breaker *Breaker, window time.Duration, addr string) *pipeliner {
	return &pipeliner{client: client, max: max, per: per, sharded: sharded, breaker: breaker, window: window, addr: addr}
}

// do runs c and waits for its reply or the end of c.ctx. It reports
// whether c's fields are no longer used by a sender: false when c.ctx ended
// while c waited, and c must then not be reused.
func (p *pipeliner) do(c *call) (settled bool) {
	p.mu.Lock()
	if p.window == 0 && p.ack.replicas == 0 && p.inFlight < p.max && len(p.queue) == 0 {
		p.inFlight++
		p.mu.Unlock()
		if p.gather(c) {
			p.finished()
			return true
		}
		return p.wait(c)
	}
	c.own() // a sender reads the keys, maybe after the caller returned
	p.queue = append(p.queue, c)
	if p.inFlight < p.max {
		if p.window == 0 || len(p.queue) >= p.per {
			p.closeWindow()
			p.inFlight++
			go p.send()
		} else {
			p.openWindow()
		}
	}
	p.mu.Unlock()
	return p.wait(c)
}

// wait waits for the reply of c, a queued call, or the end of c.ctx, and
// reports which came (see do).
func (p *pipeliner) wait(c *call) (settled bool) {
	select {
	case <-c.done:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// gather is the turn of c, a call that found no call waiting: its
// goroutine yields once, so that the goroutines ready to run go first
// (concurrent gRPC calls decoded, about to reach the store), and those
// that call the store meanwhile queue behind c, the turn being taken. With
// none, c is sent alone, under its own context, as without a pipeliner,
// and gather reports true: the turn is c's to end. Otherwise c goes first
// in the queue, as it came first, and a sender takes the queue, and the
// turn, to send it as one pipeline: c then waits as a queued call does,
// until the pipeline answers or its own context ends, however long the
// pipeline's latest deadline (a bound of WithDeadline is not the
// context's end: the pipeline's deadline, that of its calls, is). The
// yield costs a lone caller well under a microsecond; at 32 calls in
// flight it cuts round trips per decision by about a third (see the
// README's Performance section).
func (p *pipeliner) gather(c *call) (alone bool) {
	runtime.Gosched()
	if afterYield != nil {
		afterYield()
	}
	p.mu.Lock()
	if len(p.queue) == 0 {
		p.mu.Unlock()
		ctx := c.ctx
		if trip := p.breaker.trippedFor(p.addr); trip != nil {
			// Ended when the master is found down, not by go-redis's retries.
			c.tctx = tripContext{Context: c.ctx, trip: trip}
			ctx = &c.tctx
		}
		var reply string
		reply, c.err = runScript(ctx, p.client, &c.eval, c.script, c.keys, c.args)
		c.tctx = tripContext{}
		if c.err != nil {
			c.err = p.downErr(c.err)
		} else {
			one := [1]*call{c}
			c.err = splitReply(reply, one[:])
		}
		return true
	}
	c.own()
	p.queue = slices.Insert(p.queue, 0, c)
	p.mu.Unlock()
	go p.send()
	return false
}

// finished ends a sender's turn: it keeps sending while calls wait.
func (p *pipeliner) finished() {
	p.mu.Lock()
	if len(p.queue) == 0 {
		p.inFlight--
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	go p.send()
}

// sender is the scratch of one sender, reused from one pipeline to the
// next and, through pipeliner.senders, from one sender to the next.
type sender struct {
	pipe goredis.Pipeliner
	cb   combiner
	cmds []*goredis.StringCmd
	eval []evalArgs // per script call of the pipeline
	live []*call
}

// send sends the queue as one pipeline, then the calls queued meanwhile,
// until the queue is empty.
func (p *pipeliner) send() {
	p.mu.Lock()
	var sd *sender
	if n := len(p.senders); n > 0 {
		sd = p.senders[n-1]
		p.senders[n-1] = nil
		p.senders = p.senders[:n-1]
	}
	p.mu.Unlock()
	if sd == nil {
		sd = &sender{pipe: p.client.Pipeline()}
	}
	for {
		p.mu.Lock()
		batch := p.queue
		if len(batch) == 0 {
			p.inFlight--
			p.senders = append(p.senders, sd)
			p.mu.Unlock()
			return
		}
		p.queue, p.spare = p.spare[:0], nil
		p.closeWindow()
		p.mu.Unlock()

		p.exec(batch, sd)
		clear(batch)
		p.mu.Lock()
		if p.spare == nil {
			p.spare = batch[:0]
		}
		p.mu.Unlock()
	}
}

// exec sends the calls of batch whose caller still waits in one pipeline
// of EVALSHA, several calls in one script call where they can share one
// (see combiner), then the script calls the server answered NOSCRIPT in
// one of EVAL, and signals every call; while the breaker knows Redis to be
// down, it sends nothing and answers them its error.
func (p *pipeliner) exec(batch []*call, sd *sender) {
	live := sd.live[:0]
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			c.done <- struct{}{}
			continue
		}
		live = append(live, c)
	}
	defer func() { clear(live); sd.live = live[:0] }()
	if len(live) == 0 {
		return
	}
	if err := p.breaker.errFor(p.addr); err != nil {
		// Redis went down while these waited: answer them without trying.
		for _, c := range live {
			c.err = err
			c.done <- struct{}{}
		}
		return
	}
	cb := &sd.cb
	cb.group(live, p.sharded, p.per)
	defer cb.done()
	if beforeExec != nil {
		beforeExec()
	}
	ctx := batchContext(live, p.breaker.trippedFor(p.addr))
	cmds, ackErr := sd.run(ctx, cb, p.sharded, p.ack)
	if p.sharded {
		sd.retryTryAgain(ctx, cb)
	}
	for g, calls := range cb.groups {
		reply, err := cmds[g].Result()
		if err == nil {
			err = splitReply(reply, calls)
			if err == nil {
				err = ackErr
			}
		} else {
			err = p.downErr(err)
		}
		for _, c := range calls {
			if err != nil {
				c.err = err
			}
			c.done <- struct{}{}
		}
	}
	clear(cmds)
}

// run sends the script calls of cb in one pipeline of EVALSHA, then those
// the server answered NOSCRIPT in one of EVAL, which loads the script
// again, and returns their replies, each with its own error. On a Cluster
// client (sharded) go-redis is told not to retry them (see noRetry). With
// a.replicas, each pipeline ends with WAIT, on the connection that carried
// its writes, and the second result tells whether the last one was
// acknowledged in time.
func (sd *sender) run(ctx context.Context, cb *combiner, sharded bool, a ack) ([]*goredis.StringCmd, error) {
	n := len(cb.groups)
	sd.cmds = slices.Grow(sd.cmds[:0], n)[:n]
	if len(sd.eval) < n {
		sd.eval = append(sd.eval, make([]evalArgs, n-len(sd.eval))...)
	}
	for g, calls := range cb.groups {
		sd.cmds[g] = evalCmd(ctx, sd.eval[g].set(calls[0].script, true, cb.keys[g], cb.args[g]))
		sd.process(ctx, sd.cmds[g], sharded)
	}
	w := a.queue(ctx, sd.pipe)
	_, _ = sd.pipe.Exec(ctx) // each command holds its own error
	again := false
	for g, calls := range cb.groups {
		if isNoScript(sd.cmds[g].Err()) {
			sd.cmds[g] = evalCmd(ctx, sd.eval[g].set(calls[0].script, false, cb.keys[g], cb.args[g]))
			sd.process(ctx, sd.cmds[g], sharded)
			again = true
		}
	}
	if again {
		w = a.queue(ctx, sd.pipe)
		_, _ = sd.pipe.Exec(ctx)
	}
	for g := range n {
		sd.eval[g].clear()
	}
	return sd.cmds, a.result(w)
}

// process queues cmd in the sender's pipeline, marked not to be retried by
// go-redis on a Cluster client (see noRetry).
func (sd *sender) process(ctx context.Context, cmd *goredis.StringCmd, sharded bool) {
	if sharded {
		_ = sd.pipe.Process(ctx, noRetry{cmd})
		return
	}
	_ = sd.pipe.Process(ctx, cmd)
}

// downErr returns the Breaker's error for an error that only says the
// call was ended because its master (or Redis) was found down meanwhile
// (see tripContext), else err.
func (p *pipeliner) downErr(err error) error {
	if errors.Is(err, errTripped) || errors.Is(err, context.Canceled) {
		if down := p.breaker.errFor(p.addr); down != nil {
			return down
		}
	}
	return err
}

// deadlineContext is the context a pipeline is sent under: callers that
// give up return at once while others still wait for the pipeline, so no
// caller's cancellation ends it. Its deadline, when all its callers have
// one, is the latest of theirs, which bounds the pipeline's dial, reads and
// writes in go-redis (ContextTimeoutEnabled); it starts no timer, as
// context.WithDeadline would for every pipeline. It ends (Done) when the
// Breaker finds its master, or Redis, down, so that go-redis's dial
// retries and their backoff stop there.
type deadlineContext struct {
	context.Context // context.Background()
	deadline        time.Time
	trip            <-chan struct{} // nil: no Breaker
}

// Deadline implements context.Context.
func (d *deadlineContext) Deadline() (time.Time, bool) { return d.deadline, !d.deadline.IsZero() }

// Done implements context.Context.
func (d *deadlineContext) Done() <-chan struct{} { return d.trip }

// Err implements context.Context.
func (d *deadlineContext) Err() error { return trippedErr(d.trip) }

// batchContext returns the context a pipeline of the calls of live is sent
// under, ended by trip (see deadlineContext).
func batchContext(live []*call, trip <-chan struct{}) context.Context {
	var latest time.Time
	for _, c := range live {
		t, ok := c.ctx.Deadline()
		if !ok {
			latest = time.Time{}
			break
		}
		if t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() && trip == nil {
		return context.Background()
	}
	return &deadlineContext{context.Background(), latest, trip}
}

// errTripped is the error of a context ended because the Breaker found
// its master, or Redis, down; it is a cancellation for go-redis, which
// then neither retries nor waits.
var errTripped = fmt.Errorf("limit/redis: the master was found down: %w", context.Canceled)

// trippedErr returns errTripped once trip is closed, else nil.
func trippedErr(trip <-chan struct{}) error {
	select {
	case <-trip:
		return errTripped
	default:
		return nil
	}
}

// tripContext is the context of a call sent at once, alone: its caller's
// deadline and values, but Done when the Breaker finds its master (or
// Redis) down, rather than at the caller's cancellation, which go-redis
// could otherwise watch only by a goroutine per call. The caller's
// deadline still bounds the round trip, and a caller canceled meanwhile
// gets Err.
type tripContext struct {
	context.Context
	trip <-chan struct{}
}

// Done implements context.Context.
func (c *tripContext) Done() <-chan struct{} { return c.trip }

// Err implements context.Context.
func (c *tripContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	return trippedErr(c.trip)
}
