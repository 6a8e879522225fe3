package main

import (
	"slices"
	"testing"
)

// TestRedisStatsAdd: the statistics of several Redis servers (a Cluster's
// masters) add up by command; reads are unknown when one lacks them.
func TestRedisStatsAdd(t *testing.T) {
	a := &redisStats{total: 5, reads: 2, commands: []commandCount{{"evalsha", 3}, {"get", 2}}}
	b := &redisStats{total: 4, reads: 1, commands: []commandCount{{"evalsha", 1}, {"eval", 3}}}
	var none *redisStats
	got := none.add(a).add(b)
	want := []commandCount{{"evalsha", 4}, {"get", 2}, {"eval", 3}}
	if got.total != 9 || got.reads != 3 || !slices.Equal(got.commands, want) {
		t.Errorf("a + b = %+v, want total 9, reads 3, %v", got, want)
	}
	if got := a.add(&redisStats{reads: -1}); got.reads != -1 {
		t.Errorf("reads with one unknown = %d, want -1", got.reads)
	}
	if got := splitURLs("redis://a,redis://b"); !slices.Equal(got, []string{"redis://a", "redis://b"}) || splitURLs("") != nil {
		t.Errorf("splitURLs = %q", got)
	}
}
