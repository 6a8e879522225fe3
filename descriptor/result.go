package descriptor

import (
	"encoding/json"
	"fmt"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Result is the outcome of descriptor generation for one request. A Result may be reused
// across calls to GenerateInto; each call overwrites it, including the memory its
// descriptors point into, so copy what must outlive the next call. Use it by pointer.
type Result struct {
	// PolicyIndex is the index of the chosen policy in the PluginConfig, -1 when no policy
	// matched the request.
	PolicyIndex int
	// Policy is the chosen policy's name (possibly empty).
	Policy string
	// Request is the rate-limit request to send: the chosen policy's domain, the generated
	// descriptors in gateway action then configuration order, and the request-level cost
	// (Request.HitsAddend passed through). The rate-limit service is called only when there
	// is at least one descriptor. Its fields are promoted: res.Domain, res.Descriptors,
	// res.HitsAddend.
	rlsmsg.Request

	// ResponseCosts are the descriptors whose cost comes from the response body (sent in
	// Request with hits_addend 0), in descriptor order.
	ResponseCosts []ResponseCost

	entries   []rlsmsg.Entry
	overrides []rlsmsg.Override
	hits      []uint64

	// Inline storage, so that a typical request costs one allocation (the Result) or, when
	// a Result is reused, none.
	descBuf     [4]rlsmsg.Descriptor
	entryBuf    [8]rlsmsg.Entry
	overrideBuf [2]rlsmsg.Override
	hitsBuf     [2]uint64
}

// ResponseCost is a descriptor charged from the response body.
type ResponseCost struct {
	// Descriptor indexes Result.Descriptors.
	Descriptor int
	// JSONPointer locates the cost in the response body.
	JSONPointer string
}

// ShouldCall reports whether the rate-limit service should be called: a policy matched and
// produced at least one descriptor.
func (r *Result) ShouldCall() bool { return len(r.Descriptors) > 0 }

// MarshalJSON encodes the result as the CLI prints it: {policy, domain, descriptors,
// hits_addend}, policy null when none matched.
func (r *Result) MarshalJSON() ([]byte, error) {
	out := struct {
		Policy      *string             `json:"policy"`
		Domain      string              `json:"domain"`
		Descriptors []rlsmsg.Descriptor `json:"descriptors"`
		HitsAddend  uint32              `json:"hits_addend"`
	}{Domain: r.Domain, Descriptors: r.Descriptors, HitsAddend: r.HitsAddend}
	if r.PolicyIndex >= 0 {
		name := r.Policy
		if name == "" {
			name = fmt.Sprintf("rateLimitPolicies[%d]", r.PolicyIndex)
		}
		out.Policy = &name
	}
	if out.Descriptors == nil {
		out.Descriptors = []rlsmsg.Descriptor{}
	}
	return json.Marshal(out)
}

// reset empties r for a request to policy pol (nil when none), making sure its buffers hold
// the most that policy can produce so that descriptors never see their storage move.
func (r *Result) reset(pol *policy, hits uint32) {
	r.PolicyIndex, r.Policy, r.Domain, r.HitsAddend = -1, "", "", hits
	r.ResponseCosts = r.ResponseCosts[:0]
	var nd, ne, no, nh int
	if pol != nil {
		nd, ne, no, nh = pol.maxDescriptors, pol.maxEntries, pol.maxOverrides, pol.maxHits
	}
	r.Descriptors = reuse(r.Descriptors, r.descBuf[:], nd)
	r.entries = reuse(r.entries, r.entryBuf[:], ne)
	r.overrides = reuse(r.overrides, r.overrideBuf[:], no)
	r.hits = reuse(r.hits, r.hitsBuf[:], nh)
}

// reuse returns an empty slice with capacity for n elements: s when it is large enough,
// else the inline buffer, else a new array.
func reuse[T any](s, inline []T, n int) []T {
	switch {
	case cap(s) >= n && s != nil:
		return s[:0]
	case len(inline) >= n:
		return inline[:0]
	default:
		return make([]T, 0, n)
	}
}
