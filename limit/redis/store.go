package redis

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// DefaultTTLMargin is what a key's TTL adds to the span its state matters
// for, unless Options.TTLMargin says otherwise or Options.ServerTime makes
// it unneeded: the most the clocks of the servers sharing the counters
// (rlpkit's replicas, the Redis a failover promotes) may lag one another.
const DefaultTTLMargin = 500 * time.Millisecond

// maxNowMicros bounds the instants Update accepts: from the Unix epoch to
// 2^52 µs (in 2112), so that the script's arithmetic in doubles is exact.
const maxNowMicros = 1 << 52

//go:embed prelude.lua
var preludeLua string

//go:embed update.lua
var updateBody string

//go:embed fixed.lua
var fixedBody string

// updateLua and fixedLua are the scripts as sent: each after the prelude
// both share (reading the keys, integer division, expiries).
var (
	updateLua = preludeLua + updateBody
	fixedLua  = preludeLua + fixedBody
)

// updateScript is the script an Update runs, by its SHA-1 (EVALSHA),
// falling back to EVAL when the server has not cached it (NOSCRIPT);
// fixedScript replaces it when every update of the batch is a fixed
// window, with the same states and reply for less work in Redis.
var (
	updateScript = goredis.NewScript(updateLua)
	fixedScript  = goredis.NewScript(fixedLua)
)

// Options configures a Store. The zero value gives the defaults.
type Options struct {
	// KeyPrefix is prepended to every counter key, to share a Redis with
	// other data ("rlpkit:"). It must not contain '{' or '}', so that the
	// keys keep their own hash tags.
	KeyPrefix string
	// ServerTime makes every Update decide at the Redis server's clock,
	// read with TIME inside the script, so that clients with skewed clocks
	// agree; the now argument of Update is then ignored, and the decisions'
	// durations count from the server's instant.
	ServerTime bool
	// TTLMargin is added to every key's TTL (see Store); 0 means
	// DefaultTTLMargin, or no margin with ServerTime. It must not be
	// negative.
	TTLMargin time.Duration
	// Pipelines bounds the pipelines of script calls in flight at once
	// (see Store); 0 means DefaultPipelines. It must not be negative.
	Pipelines int
	// BatchRequests bounds the Updates that one script call decides (see
	// Store); 0 means DefaultBatchRequests, 1 gives every Update its own
	// script call. It must not be negative.
	BatchRequests int
	// Window, when positive, is how long an Update that finds a pipeline
	// free may wait for others to share its pipeline and script call: it
	// is queued, and the queue is sent when the window ends or as soon as
	// it holds BatchRequests Updates. 0 (the default) sends such an Update
	// after one yield of its processor, with the Updates that queued
	// meanwhile or alone; Updates queued behind a pipeline in flight are sent
	// when it returns, with or without a window. It must not be negative.
	Window time.Duration
	// SplitHashTags lets Update decide a batch whose keys have several
	// hash tags, on a Cluster or Ring client, one tag at a time rather
	// than refusing it: one script call per tag, all or nothing within
	// that tag, the calls sent together in one pipeline at once (not
	// queued behind other Updates' pipelines). A tag whose updates are all
	// admitted is counted, and its decisions marked
	// counter.Decision.PartAdmitted, even when another tag's are
	// rejected: such a request can be charged under one tag and refused
	// under another. Keys tagged by their first descriptor entry
	// (limit.TagByFirstEntry) need it whenever a request's descriptors
	// start with different entries. A standalone or Sentinel client
	// (*redis.Client) decides any batch in one script, all or nothing,
	// with or without it.
	SplitHashTags bool
	// Breaker, when set, makes Update fail at once, without a round trip,
	// while it knows Redis to be down, and learns from every round trip
	// that fails (see Breaker). It must be made for the Store's client;
	// several stores on one client share one. The Store does not close it.
	Breaker *Breaker
	// AckReplicas, when positive, makes every pipeline of script calls
	// wait (Redis WAIT, on the same connection) until that many replicas
	// have acknowledged its writes, at most AckTimeout: an Update whose
	// writes are not acknowledged in time returns an error wrapping
	// ErrNotAcknowledged, although the primary counted it, so that no hit
	// a failover to an acknowledging replica could lose was admitted. It
	// costs a second round trip per pipeline, and no Update is sent alone
	// (see Store). Only for a standalone or Sentinel client (*redis.Client);
	// it must not be negative.
	AckReplicas int
	// AckTimeout bounds AckReplicas's wait; 0 means DefaultAckTimeout. It
	// must not be negative.
	AckTimeout time.Duration
}

// Store is a counter.Store that keeps counters in Redis, through a go-redis
// UniversalClient: a standalone server, Sentinel or Cluster.
//
// Each Update is one script run (EVALSHA; EVAL once more when the server
// has not cached the script) whatever the number of updates: the script
// reads every counter, decides whether every update is admitted and, if
// so, writes the changed counters; otherwise it writes nothing. It returns
// the states it read and Store replays counter.Policy.Decide on them, so its
// decisions are exactly the memory store's.
//
// A counter is stored as a string "time count prev" (counter.State) with a
// TTL, set on every write, of the span from the write's instant until the
// state decides as a fresh counter does under any max of its algorithm and
// window, since a reload may change a limit's max and keep its key: the
// end of the window, of the window after it for the sliding window, which
// reads the previous one, the TAT for GCRA, and for the token bucket a
// window (plus a microsecond per token taken) after the state's time, the
// longest the tokens taken take to refill at any max; rounded up to the
// millisecond, plus Options.TTLMargin.
// A key written near the end of its window thus expires with the window,
// not a window later. The TTL is a span (PX), so that a Redis whose clock
// differs from the store's expires the key at the same moment; with
// Options.ServerTime, whose instants are the server's, it is that instant
// (PXAT).
//
// Concurrent Updates share round trips and script calls: while
// Options.Pipelines pipelines are in flight, further Updates wait and are
// then sent together in one pipeline (on a Cluster, one per node), those
// of one hash tag decided by one script call, each all or nothing in
// arrival order, Options.BatchRequests at most per call. An Update still
// waits for exactly one round trip, and one with no others waiting yields
// its processor once and is sent with those that queued meanwhile, or
// alone, unless Options.Window asks it to wait for others.
//
// With a Cluster or Ring client, all keys of one Update must share one hash
// tag ("{domain}" on the evaluators' keys by default), since a script can
// only touch one slot; Update returns an error otherwise rather than
// splitting the batch, which would lose its all-or-nothing guarantee,
// unless Options.SplitHashTags allows it to decide the batch one tag at a
// time (see Options.SplitHashTags for what that costs).
//
// A Store is safe for concurrent use; create it with New.
type Store struct {
	client     goredis.UniversalClient
	prefix     string
	serverTime bool
	marginMs   int64
	sharded    bool
	split      bool       // Options.SplitHashTags
	pipe       *pipeliner // the one pipeliner, but on a Cluster client
	nodes      *nodePipes // a Cluster client's pipeliners, one per master
	breaker    *Breaker   // nil: none
	scratch    sync.Pool  // *batch
}

var _ counter.Store = (*Store)(nil)

// New returns a Store on client. Deadlines of the contexts given to Update
// bound its calls only when the client honours them: create it with
// ContextTimeoutEnabled set, as NewClient does.
func New(client goredis.UniversalClient, o Options) (*Store, error) {
	var errs []error
	if client == nil {
		errs = append(errs, errors.New("limit/redis: nil client"))
	}
	if strings.ContainsAny(o.KeyPrefix, "{}") {
		errs = append(errs, fmt.Errorf("limit/redis: key prefix %q contains a brace, which would change the keys' hash tags", o.KeyPrefix))
	}
	if o.TTLMargin < 0 {
		errs = append(errs, fmt.Errorf("limit/redis: negative TTL margin %v", o.TTLMargin))
	}
	if o.Pipelines < 0 {
		errs = append(errs, fmt.Errorf("limit/redis: negative pipelines %d", o.Pipelines))
	}
	if o.BatchRequests < 0 {
		errs = append(errs, fmt.Errorf("limit/redis: negative batch requests %d", o.BatchRequests))
	}
	if o.Window < 0 {
		errs = append(errs, fmt.Errorf("limit/redis: negative window %v", o.Window))
	}
	if o.AckReplicas < 0 || o.AckTimeout < 0 {
		errs = append(errs, fmt.Errorf("limit/redis: negative ack replicas %d or ack timeout %v", o.AckReplicas, o.AckTimeout))
	}
	if _, plain := client.(*goredis.Client); o.AckReplicas > 0 && !plain {
		errs = append(errs, fmt.Errorf("limit/redis: ack replicas need a standalone or Sentinel client, not a %T", client))
	}
	if o.Breaker != nil && o.Breaker.client != client {
		errs = append(errs, errors.New("limit/redis: the breaker was made for another client"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	margin := o.TTLMargin
	if margin == 0 && !o.ServerTime {
		margin = DefaultTTLMargin
	}
	_, standalone := client.(*goredis.Client)
	pipelines := o.Pipelines
	if pipelines == 0 {
		pipelines = DefaultPipelines
	}
	per := o.BatchRequests
	if per == 0 {
		per = DefaultBatchRequests
	}
	s := &Store{
		breaker:    o.Breaker,
		client:     client,
		prefix:     o.KeyPrefix,
		serverTime: o.ServerTime,
		marginMs:   ceilMillis(margin.Microseconds()),
		sharded:    !standalone,
		split:      o.SplitHashTags,
	}
	if cluster, ok := client.(*goredis.ClusterClient); ok {
		s.nodes = &nodePipes{cluster: cluster, new: func(addr string) *pipeliner {
			return newPipeliner(client, pipelines, per, true, o.Breaker, o.Window, addr)
		}}
	} else {
		s.pipe = newPipeliner(client, pipelines, per, !standalone, o.Breaker, o.Window, "")
		s.pipe.ack = ack{replicas: o.AckReplicas, timeout: cmp.Or(o.AckTimeout, DefaultAckTimeout)}
	}
	return s, nil
}

// Update implements counter.Store in one round trip to Redis (two when the
// server has lost the script, after a restart or SCRIPT FLUSH). It returns
// an error for invalid input (decisions shorter than updates, an invalid
// policy, keys of several hash tags on a sharded client without
// SplitHashTags, an instant before 1970 or after 2112 without ServerTime)
// and when Redis does not answer within ctx; no counter changes then,
// except that a reply lost after the script ran (a dropped connection), or
// with SplitHashTags the calls of the tags that did answer, leave their
// changes in place. With Options.Breaker, while Redis is known down it
// returns the Breaker's error (wrapping counter.ErrStoreDown) at once,
// without a round trip. The caller may reuse its keys' memory as soon as
// Update returns, whatever it returned: a queued call sends copies.
func (s *Store) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if err := counter.CheckBatch("limit/redis", updates, decisions); err != nil {
		return err
	}
	if len(updates) == 0 {
		return nil
	}
	nowUs := now.UnixMicro()
	if !s.serverTime && (nowUs < 0 || nowUs >= maxNowMicros) {
		return fmt.Errorf("limit/redis: instant %v is outside the range the store computes exactly (1970 to 2112)", now)
	}
	split := false
	if s.sharded {
		if i := otherHashTag(updates); i >= 0 {
			if !s.split {
				return crossSlotError(updates, i)
			}
			split = true
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("limit/redis: %w", err)
	}
	if err := s.breaker.Err(); err != nil {
		return err
	}
	ctx = bound(ctx) // a deadline from WithDeadline
	if split {
		return s.updateParts(ctx, now, nowUs, updates, decisions)
	}

	b := s.prepare(ctx, nowUs, updates)
	c := &b.call
	p := s.pipe
	if s.nodes != nil {
		var err error
		if p, err = s.nodes.forKey(ctx, b.keys[0]); err != nil {
			s.release(b)
			s.breaker.Report(err)
			return fmt.Errorf("limit/redis: update %d counters: %w", len(updates), err)
		}
		if err := s.breaker.errFor(p.addr); err != nil {
			s.release(b)
			return err
		}
	}
	if !p.do(c) {
		// A sender may still read the call: b is left to the collector.
		s.breaker.reportNode(p.addr, ctx.Err())
		return fmt.Errorf("limit/redis: update %d counters: %w", len(b.keys), ctx.Err())
	}
	defer s.release(b)
	if c.err != nil {
		s.breaker.reportNode(p.addr, c.err)
		return fmt.Errorf("limit/redis: update %d counters: %w", len(b.keys), c.err)
	}
	return b.finish(s.serverTime, now, c.result, updates, decisions)
}

// prepare returns a batch from the pool holding the script call of
// updates at nowUs, under ctx.
func (s *Store) prepare(ctx context.Context, nowUs int64, updates []counter.Update) *batch {
	b, _ := s.scratch.Get().(*batch)
	if b == nil {
		b = &batch{call: call{done: make(chan struct{}, 1)}}
	}
	b.build(s, nowUs, updates)
	c := &b.call
	c.ctx, c.script, c.keys, c.args = ctx, b.script, b.keys, b.argv[:]
	c.borrowed = s.prefix == "" // the keys are then the caller's strings (see setKeys)
	// args is not written again until the batch is released.
	b.argv[0], b.argv[1] = "", unsafe.String(unsafe.SliceData(b.args), len(b.args))
	return b
}

// finish turns the script's answer to one request into decisions: it
// replays counter.Policy.Decide over the states the script read, at the
// instant it decided at, and checks that both agree on admitting the batch.
func (b *batch) finish(serverTime bool, now time.Time, r result, updates []counter.Update, decisions []counter.Decision) error {
	if err := b.parseStates(r.states); err != nil {
		return err
	}
	switch r.flag {
	case 'e':
		return fmt.Errorf("limit/redis: the script found a key of %q that does not hold a counter state", b.keys)
	case 'a':
		return fmt.Errorf("limit/redis: the script does not know the algorithm of an update of %q", b.keys)
	}
	admitted := r.flag == '1'
	if serverTime {
		now = time.UnixMicro(r.at)
	}
	if got := b.replay(now, updates, decisions); got != admitted {
		return fmt.Errorf("limit/redis: the script admitted=%v but counter.Policy.Decide admitted=%v over the same states (keys %q)", admitted, got, b.keys)
	}
	return nil
}

func (s *Store) release(b *batch) {
	b.reset()
	s.scratch.Put(b)
}

// ceilMillis converts microseconds to milliseconds, rounding up.
func ceilMillis(us int64) int64 {
	return (us + 999) / 1000
}
