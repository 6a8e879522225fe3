package httplimit

import (
	"net/http"
	"strconv"
)

// Handler returns next behind the limiter: the plugin at step "request".
// A request whose key is missing or empty passes unlimited. Over the limit it
// answers 429 Too Many Requests with the body "exceed limit <value>/<max>"
// (and for a rate limiter Retry-After: the interval in whole seconds, rounded
// up) and next is not called. An in-flight count is held while next runs and
// released when it returns, also when it panics; a rejected request holds
// none.
//
// A request a rate limiter admitted carries that limiter's counter in its context, so that
// the handler can add to it with Charge.
//
// Handler works whatever the Config's Step: the Step only tells a Set where
// to place the limiter.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, rej := l.admit(r)
		if rej != nil {
			rej.write(w)
			return
		}
		if release != nil {
			defer release()
		}
		if l.inflight == nil {
			r = l.withCharger(r)
		}
		next.ServeHTTP(w, r)
	})
}

// write sends the rejection.
func (rej *rejection) write(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = []string{"text/plain; charset=utf-8"}
	h["Content-Length"] = []string{strconv.Itoa(len(rej.body))}
	h["X-Content-Type-Options"] = []string{"nosniff"}
	if rej.retryAfter != "" {
		h["Retry-After"] = []string{rej.retryAfter}
	}
	w.WriteHeader(rej.status)
	_, _ = w.Write([]byte(rej.body))
}
