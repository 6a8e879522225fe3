package redis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// result is what a script call answered for one request of it.
type result struct {
	at     int64  // the instant the script decided at (Options.ServerTime)
	flag   byte   // '1' admitted, '0' rejected, 'e' a key holds no counter state, 'a' an unknown algorithm
	states string // one line per key of the request: the state it read
}

// splitReply reads a script's reply to the requests of calls, in the
// order they were sent, into each call's result: the head "now flags",
// one flag per request, then each request's lines, as many as its keys.
func splitReply(reply string, calls []*call) error {
	head, rest, _ := strings.Cut(reply, "\n")
	nowStr, flags, ok := strings.Cut(head, " ")
	if !ok || len(flags) != len(calls) {
		return fmt.Errorf("limit/redis: malformed script reply %q for %d requests", head, len(calls))
	}
	at, err := strconv.ParseInt(nowStr, 10, 64)
	if err != nil {
		return fmt.Errorf("limit/redis: malformed instant in script reply %q", head)
	}
	pos := 0 // the start of the next request's lines in rest
	for r, c := range calls {
		f := flags[r]
		if f != '0' && f != '1' && f != 'e' && f != 'a' {
			return fmt.Errorf("limit/redis: malformed flag %q in script reply %q", f, head)
		}
		start, end, last := pos, pos, r == len(calls)-1
		for j := range len(c.keys) {
			i := strings.IndexByte(rest[pos:], '\n')
			final := last && j == len(c.keys)-1
			if (i < 0) != final {
				return fmt.Errorf("limit/redis: script reply has the wrong number of states for request %d of %d (%d keys)", r+1, len(calls), len(c.keys))
			}
			if final {
				end, pos = len(rest), len(rest)
			} else {
				end, pos = pos+i, pos+i+1
			}
		}
		c.result = result{at: at, flag: f, states: rest[start:end]}
	}
	return nil
}

// parseStates reads the states of the request's keys from their lines
// (into b.stored): empty for none, "!" for a key holding another string,
// "!" and Redis's error for a key that could not be read (WRONGTYPE).
func (b *batch) parseStates(states string) error {
	rest := states
	for k := range b.keys {
		var line string
		if k == len(b.keys)-1 {
			line, rest = rest, ""
		} else {
			var ok bool
			if line, rest, ok = strings.Cut(rest, "\n"); !ok {
				return fmt.Errorf("limit/redis: script reply has %d states for %d keys", k+1, len(b.keys))
			}
		}
		var st counter.State // "": the key holds no state
		switch line {
		case "":
		case "!":
			return fmt.Errorf("limit/redis: key %q does not hold a counter state", b.keys[k])
		default:
			if msg, ok := strings.CutPrefix(line, "!"); ok {
				return fmt.Errorf("limit/redis: key %q: %s", b.keys[k], msg)
			}
			var err error
			if st, err = script.ParseState(line); err != nil {
				return fmt.Errorf("limit/redis: key %q: %w", b.keys[k], err)
			}
		}
		b.stored = append(b.stored, st)
	}
	return nil
}
