package envoygateway

import (
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policyapi"
)

// AIGatewayNamespace is the dynamic-metadata namespace Envoy AI Gateway writes a response's
// token costs into, the namespace a BackendTrafficPolicy's cost.response reads them from.
const AIGatewayNamespace = "io.envoy.ai_gateway"

// Response is what a response leaves for the rate limits Envoy applies once it is done.
type Response struct {
	// Status is the response's HTTP status; 0 means 200.
	Status int
	// Tokens is the total tokens the response reports; nil when it reports none (Envoy AI
	// Gateway then counts 0).
	Tokens *uint64
}

// EvaluateResponse is Evaluate for a request whose response is resp, as Envoy AI Gateway
// serves it: at the end of a 2xx response, its ext_proc writes every token cost of the
// route under AIGatewayNamespace, and the descriptors Envoy sends when the response is done
// read the dynamic metadata as it is then. rlpkit does not read AIGatewayRoute's
// llmRequestCosts: every key a rule's cost.response reads in that namespace is given the
// response's total tokens. A response that is not 2xx writes nothing, and a rule whose
// cost it would have written sends no descriptor (Envoy drops one whose cost does not
// render a number); a call of such descriptors is marked FromResponse. With resp nil it is
// Evaluate.
func (g *Gateway) EvaluateResponse(req *descriptor.Request, port int32, resp *Response) *Evaluation {
	return g.evaluate(req, port, resp)
}

// streamDone is the dynamic metadata when a response is done: the request's, and the token
// costs the response wrote under AIGatewayNamespace.
type streamDone struct {
	request descriptor.MetadataLookup
	keys    []string // the keys the response wrote
	tokens  float64  // the value of each
	given   bool     // whether the request was given its response
}

var _ descriptor.MetadataLookup = (*streamDone)(nil)

// Lookup finds a value the response wrote, else one of the request's metadata.
func (s *streamDone) Lookup(namespace string, path []string) (any, bool) {
	if s == nil {
		return nil, false
	}
	if s.wrote(namespace, path) {
		return s.tokens, true
	}
	if s.request == nil {
		return nil, false
	}
	return s.request.Lookup(namespace, path)
}

// wrote reports whether the response wrote the value at namespace and path.
func (s *streamDone) wrote(namespace string, path []string) bool {
	return s != nil && namespace == AIGatewayNamespace && len(path) == 1 && slices.Contains(s.keys, path[0])
}

// fromResponse reports whether cost c reads a value the response wrote.
func (s *streamDone) fromResponse(c *Cost) bool {
	return c.Metadata != nil && s.wrote(c.Metadata.Namespace, []string{c.Metadata.Key})
}

// missingNote says, for a response cost c whose value is missing, why: Envoy AI Gateway
// writes it only at the end of a 2xx response, which the request was not given.
func (s *streamDone) missingNote(c *Cost) string {
	if c.Metadata == nil || c.Metadata.Namespace != AIGatewayNamespace || (s != nil && s.given) {
		return ""
	}
	return " (Envoy AI Gateway writes it at the end of a 2xx response; a PolicyTest step's usage gives one)"
}

// streamDone returns the dynamic metadata of q when its response is done on a route with
// rules, and traces what the response wrote.
func (ev *Evaluation) streamDone(q *request, rules []*Rule) *streamDone {
	s := &streamDone{request: q.DynamicMetadata}
	resp := q.response
	if resp == nil {
		return s
	}
	s.given = true
	for _, r := range rules {
		if c := r.ResponseCost; c != nil && c.Metadata != nil && c.Metadata.Namespace == AIGatewayNamespace && !slices.Contains(s.keys, c.Metadata.Key) {
			s.keys = append(s.keys, c.Metadata.Key)
		}
	}
	if len(s.keys) == 0 {
		return s
	}
	status := resp.Status
	if status == 0 {
		status = 200
	}
	if status < 200 || status > 299 {
		ev.tracef("the response's status %d is not 2xx: Envoy AI Gateway writes no %s metadata, so nothing is charged from it", status, AIGatewayNamespace)
		s.keys = nil
		return s
	}
	var tokens uint64
	if resp.Tokens != nil {
		tokens = *resp.Tokens
	}
	s.tokens = float64(tokens)
	ev.tracef("at the end of the %d response Envoy AI Gateway writes %s: %s = %d", status, AIGatewayNamespace, strings.Join(s.keys, ", "), tokens)
	return s
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// responseOf returns the response of a contract request as EvaluateResponse reads it: its
// status and total tokens; nil when none is given.
func responseOf(in *policyapi.Request) *Response {
	if in.Response == nil {
		return nil
	}
	return &Response{Status: in.Response.Status, Tokens: in.Response.TotalTokens()}
}
