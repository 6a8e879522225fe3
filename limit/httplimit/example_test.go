package httplimit_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/rlpkit/rlpkit/limit/httplimit"
)

// fixedClock keeps the example's output the same whenever it runs.
func fixedClock() time.Time { return time.Unix(1_700_000_040, 0) }

// A reverse proxy with a per-IP rate limit on every request and a per-API-key
// in-flight limit on the requests that reach the upstream.
func ExampleLoad() {
	set, err := httplimit.Load([]byte(`
[plugins.perIP]
category = "limit"
type = "rate"
tag = "ip"
max = 2
weight = 100

[plugins.upstreamGuard]
category = "limit"
type = "inflight"
tag = "header"
key = "X-API-Key"
max = 20
step = "proxy_upstream"
`), httplimit.WithClock(fixedClock)) // time.Now by default

	if err != nil {
		log.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.SetXForwarded() },
		Transport: set.RoundTripper(nil),
	}
	handler := set.Handler(proxy)

	for range 3 {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		fmt.Println(w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	// Output:
	// 200  hello
	// 200  hello
	// 429 10 exceed limit 3/2
}
