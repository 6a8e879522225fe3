package redis

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// otherHashTag returns the index of the first update whose key's hash tag
// is not the first update's, or -1 when all share it.
func otherHashTag(updates []counter.Update) int {
	tag := script.HashTag(updates[0].Key)
	for i := 1; i < len(updates); i++ {
		if script.HashTag(updates[i].Key) != tag {
			return i
		}
	}
	return -1
}

// crossSlotError is the refusal of a batch whose updates 0 and i have
// different hash tags, without Options.SplitHashTags.
func crossSlotError(updates []counter.Update, i int) error {
	a, b := updates[0].Key, updates[i].Key
	return fmt.Errorf("limit/redis: keys %q and %q of one update have different hash tags (%q, %q); on a sharded Redis all keys of one Update must share one, unless Options.SplitHashTags lets the store decide them one tag at a time", a, b, script.HashTag(a), script.HashTag(b))
}

// updateParts decides updates one hash tag at a time (Options.SplitHashTags):
// one script call per tag, all or nothing within it, every call in one
// pipeline (go-redis sends a Cluster pipeline to each node at once). The
// decisions of a tag whose updates were all admitted are marked
// PartAdmitted: their costs are consumed whatever the other tags'
// decisions. When any call fails, Update returns an error, although the
// calls that succeeded have counted (as a reply lost after the script ran).
func (s *Store) updateParts(ctx context.Context, now time.Time, nowUs int64, updates []counter.Update, decisions []counter.Decision) error {
	parts := script.ByHashTag(len(updates), func(i int) string { return updates[i].Key })
	batches := make([]*batch, len(parts))
	subs := make([][]counter.Update, len(parts))
	defer func() {
		for _, b := range batches {
			s.release(b)
		}
	}()
	for p, idx := range parts {
		sub := make([]counter.Update, len(idx))
		for j, i := range idx {
			sub[j] = updates[i]
		}
		b, _ := s.scratch.Get().(*batch)
		if b == nil {
			b = &batch{call: call{done: make(chan struct{}, 1)}}
		}
		b.build(s, nowUs, sub)
		batches[p], subs[p] = b, sub
	}
	// A tag whose master is known down fails the Update at once.
	addrs := make([]string, len(parts))
	if s.nodes != nil {
		for p := range parts {
			m, err := s.nodes.cluster.MasterForKey(ctx, batches[p].keys[0])
			if err != nil {
				return fmt.Errorf("limit/redis: update %d counters under %d hash tags: %w", len(updates), len(parts), err)
			}
			addrs[p] = m.Options().Addr
			if err := s.breaker.errFor(addrs[p]); err != nil {
				return err
			}
		}
	}
	// The keys may be the caller's memory: they are read only before Eval
	// returns, so before Update does.
	cmds := make([]*goredis.Cmd, len(parts))
	script.Eval(ctx, s.client, cmds, func(pipe goredis.Pipeliner, p int, sha bool) *goredis.Cmd {
		b := batches[p]
		if sha {
			return b.script.EvalSha(ctx, pipe, b.keys, "", b.args)
		}
		return b.script.Eval(ctx, pipe, b.keys, "", b.args)
	})
	for p, cmd := range cmds {
		c := &batches[p].call
		c.keys = batches[p].keys
		reply, err := cmd.Text()
		if err == nil {
			one := [1]*call{c}
			err = splitReply(reply, one[:])
		}
		if err != nil {
			s.breaker.reportNode(addrs[p], err)
			return fmt.Errorf("limit/redis: update %d counters under %d hash tags: hash tag %q: %w", len(updates), len(parts), script.HashTag(subs[p][0].Key), err)
		}
	}
	ds := make([]counter.Decision, len(updates))
	for p, idx := range parts {
		d := ds[:len(idx)]
		if err := batches[p].finish(s.serverTime, now, batches[p].call.result, subs[p], d); err != nil {
			return err
		}
		admitted := true
		for j := range d {
			admitted = admitted && d[j].Allowed
		}
		for j, i := range idx {
			decisions[i] = d[j]
			decisions[i].PartAdmitted = admitted
		}
	}
	return nil
}

// HashTag returns the part of key Redis Cluster hashes to choose a slot:
// the text between the first '{' and the next '}' when it is not empty,
// else the whole key. Keys with one hash tag go to one node, so one script
// call decides them.
func HashTag(key string) string { return script.HashTag(key) }
