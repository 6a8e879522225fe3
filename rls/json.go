package rls

import (
	"fmt"
	"io"
	"net/http"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// JSONHandler returns the reference's POST /json endpoint (any method with
// Conventions.JSONBareErrors, as the reference takes): the body is a
// RateLimitRequest in protobuf's JSON mapping, the answer the
// RateLimitResponse in the same mapping, with status 200, or 429 when the
// overall code is OVER_LIMIT. A body that is not a request, a request the
// Service refuses as invalid (over a cap too) and a body longer than any
// request within the caps takes in JSON (see RequestCaps) answer 400, and
// a call that fails otherwise 500, with the reason as plain text; with
// Conventions.JSONBareErrors every failure answers 400 "Bad Request", as
// the reference does, but for a request over a cap (the reference has
// none), answered with the reason, which names the setting to raise. The body is decoded whole before the caps are
// checked, so its bound is what bounds the work of a request over them.
func (s *Service) JSONHandler() http.Handler {
	maxBody := s.caps.maxJSONBody()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && !s.conv.JSONBareErrors {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST a RateLimitRequest in JSON", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, int64(maxBody)+1))
		if err != nil {
			s.jsonError(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > maxBody {
			// The caps are rlpkit's own: say which setting raises them.
			http.Error(w, s.bodyTooLong(maxBody), http.StatusBadRequest)
			return
		}
		var req rlsv3.RateLimitRequest
		if err := protojson.Unmarshal(body, &req); err != nil {
			s.jsonError(w, "invalid RateLimitRequest: "+err.Error(), http.StatusBadRequest)
			return
		}
		resp, refused, err := s.shouldRateLimit(r.Context(), &req)
		switch {
		case refused == refusedOverCap:
			http.Error(w, status.Convert(err).Message(), http.StatusBadRequest)
			return
		case refused == refusedInvalid:
			s.jsonError(w, status.Convert(err).Message(), http.StatusBadRequest)
			return
		case err != nil:
			s.jsonError(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out, err := protojson.Marshal(resp)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if resp.OverallCode == rlsv3.RateLimitResponse_OVER_LIMIT {
			w.WriteHeader(http.StatusTooManyRequests)
		}
		w.Write(out)
	})
}

// jsonError answers a failed POST /json: with code and msg, or as the
// reference answers every failure (Conventions.JSONBareErrors).
func (s *Service) jsonError(w http.ResponseWriter, msg string, code int) {
	if s.conv.JSONBareErrors {
		code = http.StatusBadRequest
		msg = http.StatusText(code)
	}
	http.Error(w, msg, code)
}

// bodyTooLong is the answer to a body over max bytes.
func (s *Service) bodyTooLong(max int) string {
	msg := fmt.Sprintf("the request body is over %d bytes, the most a request within the caps takes in JSON", max)
	if names := s.capNames(); names != "" {
		msg += " (raise the caps with " + names + ")"
	}
	return msg
}
