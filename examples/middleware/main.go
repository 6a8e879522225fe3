// Command middleware is a reverse proxy guarded by the limit plugins of a
// TOML file (package limit/httplimit): the plugins at step "request" run in
// front of the proxy, those at step "proxy_upstream" in its transport, so
// they count only the requests that reach the upstream.
//
// Usage:
//
//	go run ./examples/middleware -config examples/middleware/limits.toml \
//	    -upstream http://127.0.0.1:9000 -addr 127.0.0.1:8080 \
//	    [-trusted-proxies 10.0.0.0/8,fd00::/8] [-redis redis://127.0.0.1:6379/0]
//
// limits.toml beside this file limits every client address to 100 requests
// a minute and every API key (header X-API-Key) to 2 requests at the
// upstream at once. With -redis the rate counters live in Redis, so every
// proxy started with the same -redis shares one budget; in-flight counts stay
// per process. The proxy prints "listening on http://ADDR" once it accepts
// connections and stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, time.Now))
}
