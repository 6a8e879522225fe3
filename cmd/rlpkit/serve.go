package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rls"
)

const serveSynopsis = `rlpkit serve (--limits FILE | PATH...) [--addr 127.0.0.1:8081] [--metrics-addr ADDR] [flags]

Serves Envoy's Rate Limit Service (envoy.service.ratelimit.v3.RateLimitService) over gRPC,
with gRPC health and reflection, enforcing either the limits of a limits FILE (limitador's
format, YAML or JSON) or the limits of every Gateway compiled from the topology in PATH...
(files and directories, as "rlpkit compile" reads them). Counters are kept in memory, or
with --redis in Redis, shared by every server using it (redis://host:port/db, rediss://
for TLS; a Cluster with addr=host:port parameters, Sentinel with master_name=NAME); when
Redis cannot answer, calls answer Unavailable. The inputs are reloaded when they change;
invalid new inputs keep the limits in force and the reason is logged. Logs go to stderr.
SIGINT or SIGTERM stops the server gracefully.`

// serveOptions is the command line of "rlpkit serve".
type serveOptions struct {
	limitsFile      string
	paths           []string
	addr            string
	metricsAddr     string
	responseHeaders bool
	maxKeys         int
	redisURL        string
	redisKeyPrefix  string
	redisServerTime bool
	storeTimeout    time.Duration
	logFormat       string
	reloadInterval  time.Duration
	shutdownTimeout time.Duration

	// wrapStore, when set, wraps the counter store; tests use it to hold
	// calls in flight.
	wrapStore func(counter.Store) counter.Store
}

// runServe implements "rlpkit serve": it serves until SIGINT or SIGTERM.
func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return serveUntilSignal(args, stdout, stderr, nil)
}

// serveUntilSignal is runServe with serveUntil's ready hook.
func serveUntilSignal(args []string, stdout, stderr io.Writer, ready func(grpcAddr, metricsAddr string)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, args, stdout, stderr, ready)
}

// serveUntil is "rlpkit serve" stopping when ctx is done instead of on a signal.
// ready, when not nil, is called with the gRPC and metrics addresses (the latter
// empty without --metrics-addr) once both listen.
func serveUntil(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(grpcAddr, metricsAddr string)) int {
	o, err := parseServe(args, stdout)
	if err == nil {
		err = serve(ctx, o, newLogger(stderr, o.logFormat), ready)
	}
	return exitFor("serve", err, stderr)
}

func parseServe(args []string, stdout io.Writer) (serveOptions, error) {
	var o serveOptions
	fs := newFlagSet("serve")
	fs.StringVar(&o.limitsFile, "limits", "", "a limits `FILE` in limitador's format (YAML or JSON), instead of PATH...")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8081", "the gRPC listen `address`")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on /metrics at this `address` (default: none)")
	fs.BoolVar(&o.responseHeaders, "response-headers", false, "add RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After to responses")
	fs.IntVar(&o.maxKeys, "max-keys", 0, "the memory store's bound on counters (0: 1,000,000)")
	fs.StringVar(&o.redisURL, "redis", "", "keep the counters in the Redis at this `URL` instead of in memory")
	fs.StringVar(&o.redisKeyPrefix, "redis-key-prefix", "", "a `prefix` for every Redis key, to share a Redis with other data")
	fs.BoolVar(&o.redisServerTime, "redis-server-time", true, "decide at Redis's clock (TIME), so that servers with skewed clocks agree")
	fs.DurationVar(&o.storeTimeout, "redis-timeout", time.Second, "the longest a call waits for Redis; one with a deadline waits at most 9/10 of its time left")
	fs.StringVar(&o.logFormat, "log-format", "text", "log `format`: text or json")
	fs.DurationVar(&o.reloadInterval, "reload-interval", time.Second, "how often to look for changed inputs (0: never)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long a graceful stop waits for calls in flight")
	paths, err := parseFlags(fs, args, serveSynopsis, true, stdout)
	if err != nil {
		return o, err
	}
	o.paths = paths
	switch {
	case (o.limitsFile == "") == (len(paths) == 0):
		return o, usagef("exactly one of --limits FILE and PATH... is required")
	case o.limitsFile == "-" || contains(paths, "-"):
		return o, usagef(`"-" (stdin) cannot be watched for changes; name a file`)
	case o.logFormat != "text" && o.logFormat != "json":
		return o, usagef("--log-format %q: want text or json", o.logFormat)
	case o.maxKeys < 0:
		return o, usagef("--max-keys %d: want 0 or more", o.maxKeys)
	case o.reloadInterval < 0:
		return o, usagef("--reload-interval %v: want 0 or more", o.reloadInterval)
	case o.shutdownTimeout <= 0:
		return o, usagef("--shutdown-timeout %v: want more than 0", o.shutdownTimeout)
	case o.storeTimeout <= 0:
		return o, usagef("--redis-timeout %v: want more than 0", o.storeTimeout)
	case o.redisURL == "" && (o.redisKeyPrefix != "" || !o.redisServerTime):
		return o, usagef("--redis-key-prefix and --redis-server-time need --redis")
	case o.redisURL != "" && o.maxKeys != 0:
		return o, usagef("--max-keys bounds the memory store; it has no effect with --redis")
	}
	return o, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serve runs the server until ctx is done, then stops it gracefully. It returns
// an error when the limits cannot be loaded or a listener cannot be opened.
func serve(ctx context.Context, o serveOptions, log *slog.Logger, ready func(grpcAddr, metricsAddr string)) error {
	src := limitSource{file: o.limitsFile, paths: o.paths}
	limits, err := src.load()
	if err != nil {
		return err
	}
	cs, err := openStore(o, log)
	if err != nil {
		return err
	}
	defer cs.close()
	var store counter.Store = cs.Store
	if cs.kind == "redis" {
		store = boundedStore{Store: store, timeout: o.storeTimeout}
	}
	if o.wrapStore != nil {
		store = o.wrapStore(store)
	}
	metrics := newServeMetrics()
	store = metrics.instrument(store, log)
	svc, err := rls.New(limits, rls.Options{Store: store, ResponseHeaders: o.responseHeaders, Observe: metrics.observe})
	if err != nil {
		return err
	}
	metrics.loaded(len(limits))

	lis, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("rlpkit serve: --addr: %w", err)
	}
	var metricsLis net.Listener
	if o.metricsAddr != "" {
		if metricsLis, err = net.Listen("tcp", o.metricsAddr); err != nil {
			lis.Close()
			return fmt.Errorf("rlpkit serve: --metrics-addr: %w", err)
		}
	}

	srv := grpc.NewServer()
	rlsv3.RegisterRateLimitServiceServer(srv, svc)
	hs := health.NewServer()
	hs.SetServingStatus(rlsv3.RateLimitService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)

	// Every goroutine reports here when it ends; an early end is fatal.
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(lis) }()
	var httpSrv *http.Server
	metricsAt := ""
	if metricsLis != nil {
		httpSrv = &http.Server{Handler: metrics.handler(), ReadHeaderTimeout: 10 * time.Second}
		metricsAt = metricsLis.Addr().String()
		go func() { errc <- httpSrv.Serve(metricsLis) }()
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		watch(watchCtx, src, o.reloadInterval, svc, metrics, log)
	}()
	log.Info("serving", "addr", lis.Addr().String(), "metrics_addr", metricsAt, "store", cs.kind,
		"limits", len(limits), "inputs", src.String())
	if ready != nil {
		ready(lis.Addr().String(), metricsAt)
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		log.Error("listener failed", "err", serveErr)
	}
	stopWatch()
	<-watchDone
	log.Info("stopping", "timeout", o.shutdownTimeout.String())
	hs.Shutdown()
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	timer := time.NewTimer(o.shutdownTimeout)
	defer timer.Stop()
	select {
	case <-stopped:
	case <-timer.C:
		log.Warn("graceful stop timed out; closing the remaining calls")
		srv.Stop()
		<-stopped
	}
	if httpSrv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
		defer cancel()
		if err := httpSrv.Shutdown(sctx); err != nil {
			httpSrv.Close()
		}
	}
	log.Info("stopped")
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("rlpkit serve: %w", serveErr)
	}
	return nil
}
