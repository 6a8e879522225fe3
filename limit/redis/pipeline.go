package redis

import (
	"context"
	"slices"
	"sync"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// DefaultPipelines is how many pipelines of script calls a Store keeps in
// flight at once, unless Options.Pipelines says otherwise. One gives the
// largest pipelines, so the least CPU per decision in the client and in
// Redis; more can help over a link whose round trip is long next to
// Redis's time per pipeline.
const DefaultPipelines = 1

// pipeliner sends the script calls of concurrent Updates to Redis together,
// in one pipeline (one write, one read on each side), instead of one
// request and one reply per call, and the calls that can share a script
// call in one (see combiner): Redis and the client then spend their system
// calls, event-loop turns, command encoding and reply parsing on many
// decisions at once. Each call is still decided all or nothing, in arrival
// order, and waits for one round trip: the pipeline it is sent in.
//
// No goroutine waits idle and, without a window (see window.go), nothing
// delays a call. A call that finds fewer than max pipelines in flight and
// no other call waiting is sent at once, alone, by its own goroutine and
// under its own context, as without a pipeliner. Calls that arrive while max pipelines are in flight wait in
// a queue; a sender that finishes takes the whole queue as its next
// pipeline, and stops when it finds the queue empty. A caller whose
// context ends while its call waits returns at once; its call is then not
// sent, or, when already sent, its result is dropped (the script may have
// counted it, as with a reply lost to a dropped connection). So a queued
// call owns its keys (see call): the one its caller asked for is the one
// sent, whatever the caller's memory holds after it returned.
type pipeliner struct {
	client  goredis.UniversalClient
	max     int
	per     int           // requests per script call, at most
	sharded bool          // only calls of one hash tag share a script call
	breaker *Breaker      // nil: none; a pipeline is not sent while it is down
	window  time.Duration // Options.Window: 0, none (see window.go)

	mu       sync.Mutex
	queue    []*call
	spare    []*call // the previous queue's array, to reuse
	inFlight int     // pipelines being sent, at most max
	timer    stopper // the window open over the queue; nil: none
	gen      uint64  // counts the windows opened, so that a stale one is ignored
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
	args     []any // ARGV: "" then the request's numbers (see fixed.lua)
	result
	err  error
	done chan struct{} // capacity 1
	kbuf []byte        // the keys' bytes once owned, reused with the call
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

// beforeExec, when set, is called by a sender after it has picked the
// calls of a pipeline whose callers still wait and before it queues and
// sends them. Only tests set it, to hold a pipeline there.
var beforeExec func()

func newPipeliner(client goredis.UniversalClient, max, per int, sharded bool, breaker *Breaker, window time.Duration) *pipeliner {
	return &pipeliner{client: client, max: max, per: per, sharded: sharded, breaker: breaker, window: window}
}

// do runs c and waits for its reply or the end of c.ctx. It reports
// whether c's fields are no longer used by a sender: false when c.ctx ended
// while c waited, and c must then not be reused.
func (p *pipeliner) do(c *call) (settled bool) {
	p.mu.Lock()
	if p.window == 0 && p.inFlight < p.max && len(p.queue) == 0 {
		p.inFlight++
		p.mu.Unlock()
		var reply string
		if reply, c.err = c.script.Run(c.ctx, p.client, c.keys, c.args...).Text(); c.err == nil {
			one := [1]*call{c}
			c.err = splitReply(reply, one[:])
		}
		p.finished()
		return true
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
	select {
	case <-c.done:
		return true
	case <-c.ctx.Done():
		return false
	}
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

// send sends the queue as one pipeline, then the calls queued meanwhile,
// until the queue is empty.
func (p *pipeliner) send() {
	var cmds []*goredis.Cmd
	var cb combiner
	for {
		p.mu.Lock()
		batch := p.queue
		if len(batch) == 0 {
			p.inFlight--
			p.mu.Unlock()
			return
		}
		p.queue, p.spare = p.spare[:0], nil
		p.closeWindow()
		p.mu.Unlock()

		cmds = p.exec(batch, cmds[:0], &cb)
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
func (p *pipeliner) exec(batch []*call, cmds []*goredis.Cmd, cb *combiner) []*goredis.Cmd {
	ctx, cancel := batchContext(batch)
	defer cancel()
	live := batch[:0:0]
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			c.done <- struct{}{}
			continue
		}
		live = append(live, c)
	}
	if len(live) == 0 {
		return cmds
	}
	if err := p.breaker.Err(); err != nil {
		// Redis went down while these waited: answer them without trying.
		for _, c := range live {
			c.err = err
			c.done <- struct{}{}
		}
		return cmds
	}
	cb.group(live, p.sharded, p.per)
	defer cb.done()
	n := len(cb.groups)
	if cap(cmds) < n {
		cmds = make([]*goredis.Cmd, n)
	}
	cmds = cmds[:n]
	if beforeExec != nil {
		beforeExec()
	}
	script.Eval(ctx, p.client, cmds, func(pipe goredis.Pipeliner, g int, sha bool) *goredis.Cmd {
		s := cb.groups[g][0].script
		if sha {
			return s.EvalSha(ctx, pipe, cb.keys[g], cb.args[g]...)
		}
		return s.Eval(ctx, pipe, cb.keys[g], cb.args[g]...)
	})
	for g, calls := range cb.groups {
		reply, err := cmds[g].Text()
		if err == nil {
			err = splitReply(reply, calls)
		}
		for _, c := range calls {
			if err != nil {
				c.err = err
			}
			c.done <- struct{}{}
		}
	}
	clear(cmds)
	return cmds
}

// batchContext returns the context a pipeline is sent under: no caller's
// cancellation ends it (others still wait for it), and its deadline is the
// latest of the callers' when all have one (otherwise the client's read
// and write timeouts bound it).
func batchContext(batch []*call) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, c := range batch {
		d, ok := c.ctx.Deadline()
		if !ok {
			return context.Background(), func() {}
		}
		if d.After(latest) {
			latest = d
		}
	}
	return context.WithDeadline(context.Background(), latest)
}
