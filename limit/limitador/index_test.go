package limitador

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// indexConditions are conditions and variables of every shape: those the
// index lists limits under and those it leaves to be tried always.
var (
	indexConditions = []string{
		"a == '1'", "b == \"2\"", "'1' == c", "a != '2'", "c != 1",
		`descriptors[0]["a"] == "1"`, "descriptors[1]['b'] == '2'", `descriptors[0]['c'] == "1"`,
		"descriptors[0]['a'] != '1'", "size(descriptors) > 1", `'2' == descriptors[0]["b"]`,
		"descriptors[0].a == '2'", "descriptors[2]['a'] == '1'", "limit.name == 'n3'",
	}
	indexVariables = []string{"a", "b", "descriptors[0]['c']", `descriptors[1]["a"]`, "descriptors[0].b", "limit.name"}
)

// randomLimits returns n distinct limits of namespace ns built from
// indexConditions and indexVariables.
func randomLimits(r *rand.Rand, ns string, n int) []Limit {
	out := make([]Limit, n)
	for i := range out {
		l := Limit{Namespace: ns, Name: "n" + strconv.Itoa(i%5), MaxValue: uint32(1 + r.IntN(4)), Seconds: uint32(60 + i)}
		for range r.IntN(3) {
			l.Conditions = append(l.Conditions, indexConditions[r.IntN(len(indexConditions))])
		}
		for range r.IntN(3) {
			l.Variables = append(l.Variables, indexVariables[r.IntN(len(indexVariables))])
		}
		out[i] = l
	}
	return out
}

// randomRequest returns a request of 1 to 3 descriptors over the keys a, b,
// c (values 1 and 2), some with an override.
func randomRequest(r *rand.Rand, ns string) *rlsmsg.Request {
	req := &rlsmsg.Request{Domain: ns}
	for range 1 + r.IntN(3) {
		var d rlsmsg.Descriptor
		for range r.IntN(4) {
			d.Entries = append(d.Entries, rlsmsg.Entry{Key: string(rune('a' + r.IntN(3))), Value: strconv.Itoa(1 + r.IntN(2))})
		}
		if r.IntN(8) == 0 {
			d.Limit = &rlsmsg.Override{RequestsPerUnit: 3, Unit: rlsmsg.UnitMinute}
		}
		req.Descriptors = append(req.Descriptors, d)
	}
	return req
}

// TestEvaluatorIndexAgreesWithTryingAll runs random requests through two
// evaluators of the same random limits, one trying every limit and one
// trying only those its index finds: they give the same answers and count
// the same counters.
func TestEvaluatorIndexAgreesWithTryingAll(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 3))
	for round := range 20 {
		limits := randomLimits(r, "ns", 1+r.IntN(40))
		all, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		for _, dl := range all.domains {
			dl.index = nil
		}
		indexed, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		indexed.buildIndexes(0)
		for i := range 200 {
			req := randomRequest(r, "ns")
			now := t0.Add(s1 * time.Duration(i))
			var want, got limit.Result
			errWant := all.Evaluate(context.Background(), now, req, &want)
			errGot := indexed.Evaluate(context.Background(), now, req, &got)
			if fmt.Sprint(errWant) != fmt.Sprint(errGot) {
				t.Fatalf("round %d request %d: errors %v (all) and %v (indexed)", round, i, errWant, errGot)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("round %d request %d %+v: results differ (-all +indexed):\n%s", round, i, req, diff)
			}
		}
	}
}

// TestLimitIndexNarrows checks what the index tries for a request matching
// one limit among 1,000 of each indexed shape.
func TestLimitIndexNarrows(t *testing.T) {
	for _, tc := range []struct {
		name string
		cond func(i int) []string
		vars []string
	}{
		{"legacy equality", func(i int) []string { return []string{"id == '" + strconv.Itoa(i) + "'"} }, nil},
		{"reversed legacy equality", func(i int) []string { return []string{"'" + strconv.Itoa(i) + "' == id"} }, []string{"user"}},
		{"CEL equality", func(i int) []string { return []string{`descriptors[0]["limit.l` + strconv.Itoa(i) + `"] == "1"`} }, nil},
		{"CEL equality, single quotes", func(i int) []string { return []string{`descriptors[0]['limit.l` + strconv.Itoa(i) + `'] == '1'`} }, nil},
		{"legacy variable", func(i int) []string { return nil }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limits := make([]Limit, 1000)
			for i := range limits {
				limits[i] = Limit{Namespace: "ns", MaxValue: 1, Seconds: 60, Conditions: tc.cond(i), Variables: tc.vars}
				if tc.name == "legacy variable" {
					limits[i].Variables = []string{"v" + strconv.Itoa(i)}
				}
			}
			e, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			descs := []rlsmsg.Descriptor{{Entries: entries("id", "500", "limit.l500", "1", "user", "u", "v500", "x")}}
			if got := e.domains["ns"].index.candidates(descs, nil); len(got) != 1 || got[0] != 500 {
				t.Errorf("candidates = %v, want [500]", got)
			}
		})
	}
}
