package envoyroute

import (
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/rlpkit/rlpkit/descriptor"
)

// AIGatewayNamespace is the dynamic-metadata namespace Envoy AI Gateway's ext_proc writes a
// response's token costs into.
const AIGatewayNamespace = "io.envoy.ai_gateway"

// Response is what the upstream's response leaves for the rate limits Envoy applies when
// the stream is done, as Envoy AI Gateway serves it: at the end of a 2xx response its
// ext_proc writes the token costs under AIGatewayNamespace. rlpkit does not read AI
// Gateway's llmRequestCosts: a stream-done rate limit whose hits_addend is
// %DYNAMIC_METADATA(io.envoy.ai_gateway:KEY)% reads the response's total tokens as KEY's
// value. A response that is not 2xx writes nothing, and such a rate limit reads the request's
// metadata alone.
type Response struct {
	// Status is the response's HTTP status; 0 means 200.
	Status int
	// Tokens is the total tokens the response reports; nil counts 0.
	Tokens *uint64
}

// written reports whether the response wrote its token costs (a 2xx status).
func (r *Response) written() bool {
	s := r.Status
	if s == 0 {
		s = 200
	}
	return s >= 200 && s <= 299
}

// aiKey returns the AIGatewayNamespace key rl's hits_addend reads, if any.
func aiKey(rl *routev3.RateLimit) (string, bool) {
	h := rl.GetHitsAddend()
	if h.GetFormat() == "" {
		return "", false
	}
	parts, ok := metadataFormat(h.Format)
	if !ok || len(parts) != 2 || parts[0] != AIGatewayNamespace {
		return "", false
	}
	return parts[1], true
}

// streamDone returns q as stream-done rate limit rl reads it when the response wrote the
// value of its cost; nil when it did not (no response, a status that is not 2xx, or a cost
// that is not read from AIGatewayNamespace).
func streamDone(q *prepared, rl *routev3.RateLimit) *prepared {
	resp := q.Response
	if resp == nil || !resp.written() {
		return nil
	}
	key, ok := aiKey(rl)
	if !ok {
		return nil
	}
	var tokens float64
	if resp.Tokens != nil {
		tokens = float64(*resp.Tokens)
	}
	wq := *q
	wq.Request = new(Request)
	*wq.Request = *q.Request
	wq.Metadata = written{request: q.Metadata, key: key, tokens: tokens}
	return &wq
}

// written is the dynamic metadata when the stream is done: the request's, and the token
// cost the response wrote under key.
type written struct {
	request descriptor.MetadataLookup
	key     string
	tokens  float64
}

// Lookup finds the value the response wrote, else one of the request's metadata.
func (w written) Lookup(namespace string, path []string) (any, bool) {
	if namespace == AIGatewayNamespace && len(path) == 1 && path[0] == w.key {
		return w.tokens, true
	}
	if w.request == nil {
		return nil, false
	}
	return w.request.Lookup(namespace, path)
}

// responseNote says why a stream-done rate limit reading Envoy AI Gateway's metadata has no
// value: its response was not given, or was not 2xx.
func responseNote(q *prepared, rl *routev3.RateLimit) string {
	if !rl.GetApplyOnStreamDone() {
		return ""
	}
	if _, ok := aiKey(rl); !ok {
		return ""
	}
	if q.Response == nil {
		return " (Envoy AI Gateway writes it at the end of a 2xx response; a PolicyTest step's usage gives one)"
	}
	return " (the response is not 2xx: Envoy AI Gateway writes nothing)"
}
