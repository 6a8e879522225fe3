// Package script is what limit/redis and limit/redis/cached share about
// talking to Redis through their Lua scripts: how a number is passed to a
// script, how a counter's state stored in Redis reads, and which part of a
// key Redis Cluster hashes (every key of one script call must hash alike).
package script

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// AppendNum appends v as the scripts read their arguments
// (struct.unpack('<d')): a little-endian IEEE double. Every v the stores
// pass is an integer below 2^53, so it is exact.
func AppendNum(a []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(a, math.Float64bits(float64(v)))
}

// ParseState reads a counter's state as the scripts store it, "time count
// prev" (decimal integers, count and prev not negative). Anything else,
// the empty string included, is an error.
func ParseState(s string) (counter.State, error) {
	t, rest, ok1 := strings.Cut(s, " ")
	c, p, ok2 := strings.Cut(rest, " ")
	if ok1 && ok2 {
		ti, err1 := strconv.ParseInt(t, 10, 64)
		ci, err2 := strconv.ParseUint(c, 10, 64)
		pi, err3 := strconv.ParseUint(p, 10, 64)
		if err1 == nil && err2 == nil && err3 == nil {
			return counter.State{Time: ti, Count: ci, Prev: pi}, nil
		}
	}
	return counter.State{}, fmt.Errorf("malformed counter state %q", s)
}

// HashTag returns the part of key Redis Cluster hashes: the text between
// the first '{' and the next '}' when it is not empty, else the whole key.
func HashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	n := strings.IndexByte(key[open+1:], '}')
	if n <= 0 {
		return key
	}
	return key[open+1 : open+1+n]
}

// ByHashTag returns the indexes 0..n-1 grouped by the hash tag of key(i),
// the groups in the order of their first index: one group per Cluster slot
// a script call may touch.
func ByHashTag(n int, key func(i int) string) [][]int {
	group := make(map[string]int)
	var groups [][]int
	for i := range n {
		tag := HashTag(key(i))
		g, ok := group[tag]
		if !ok {
			g = len(groups)
			group[tag] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}
