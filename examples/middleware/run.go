package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit/httplimit"
	limitredis "github.com/rlpkit/rlpkit/limit/redis"
)

// run is the program: it returns 0 after a graceful stop (ctx done), 1 when
// it cannot start, 2 on bad usage. now is the limiters' clock.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) int {
	fs := flag.NewFlagSet("middleware", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "the limits `file` (TOML, [plugins.NAME] tables)")
	upstream := fs.String("upstream", "", "the upstream's `URL`")
	addr := fs.String("addr", "127.0.0.1:8080", "the `address` to listen on")
	trusted := fs.String("trusted-proxies", "", "comma-separated `CIDRs` of proxies whose X-Forwarded-For is believed")
	redisURL := fs.String("redis", "", "keep rate counters in this Redis (`URL`), shared by every proxy using it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *configPath == "" || *upstream == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: middleware -config FILE -upstream URL [-addr HOST:PORT] [-trusted-proxies CIDR,...] [-redis URL]")
		return 2
	}
	target, err := url.Parse(*upstream)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		fmt.Fprintf(stderr, "middleware: -upstream %q: want an http or https URL\n", *upstream)
		return 2
	}

	opts := []httplimit.Option{httplimit.WithClock(now)}
	if *trusted != "" {
		var prefixes []netip.Prefix
		for _, s := range strings.Split(*trusted, ",") {
			p, err := netip.ParsePrefix(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintf(stderr, "middleware: -trusted-proxies: %v\n", err)
				return 2
			}
			prefixes = append(prefixes, p)
		}
		opts = append(opts, httplimit.WithTrustedProxies(prefixes...))
	}
	if *redisURL != "" {
		client, err := limitredis.NewClient(*redisURL)
		if err != nil {
			fmt.Fprintf(stderr, "middleware: -redis: %v\n", err)
			return 2
		}
		defer client.Close()
		store, err := limitredis.New(client, limitredis.Options{KeyPrefix: "middleware:"})
		if err != nil {
			fmt.Fprintf(stderr, "middleware: -redis: %v\n", err)
			return 1
		}
		opts = append(opts, httplimit.WithStore(store), httplimit.WithStoreErrorHandler(
			func(r *http.Request, err error) bool {
				fmt.Fprintf(stderr, "middleware: %s %s: %v\n", r.Method, r.URL.Path, err)
				return false // 503: a proxy that cannot count does not admit
			}))
	}

	data, err := os.ReadFile(*configPath)
	if err != nil {
		fmt.Fprintf(stderr, "middleware: %v\n", err)
		return 1
	}
	set, err := httplimit.Load(data, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "middleware: %s:\n%v\n", *configPath, err)
		return 1
	}

	errorLog := log.New(stderr, "middleware: ", 0)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
			pr.SetXForwarded() // appends the client to the chain
		},
		Transport: set.RoundTripper(http.DefaultTransport),
		ErrorLog:  errorLog,
	}
	srv := &http.Server{
		Handler:           set.Handler(proxy),
		ReadHeaderTimeout: 10 * time.Second, // a connection that never finishes its headers is closed
		IdleTimeout:       90 * time.Second, // and a kept-alive one left idle
		ErrorLog:          errorLog,
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "middleware: %v\n", err)
		return 1
	}
	for _, l := range set.Limiters() {
		c := l.Config()
		on := string(c.Tag)
		if c.Tag != httplimit.TagIP {
			on += " " + c.Key
		}
		fmt.Fprintf(stdout, "plugin %s: %s by %s, max %d, step %s\n", l.Name(), c.Type, on, c.Max, c.Step)
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "middleware: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintf(stderr, "middleware: shutdown: %v\n", err)
		return 1
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "middleware: %v\n", err)
		return 1
	}
	return 0
}
