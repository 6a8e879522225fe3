package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/internal/gcfloor"
	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rls"
)

const serveSynopsis = `rlpkit serve (--limits FILE|DIR | PATH...) [--addr 127.0.0.1:8081] [--http-addr 127.0.0.1:8080] [--redis URL] [flags]

Serves Envoy's Rate Limit Service (envoy.service.ratelimit.v3.RateLimitService) over gRPC,
with gRPC health and reflection, enforcing either the limits of a limits FILE (limitador's
format, YAML or JSON) or the limits of every Gateway compiled from the topology in PATH...
(files and directories, as "rlpkit compile" reads them; the Limitador limits of
kuadrant.io/v1 RateLimitPolicies too, as "rlpkit compile" prints them). Counters are kept in memory, or
with --redis in Redis, shared by every server using it (redis://host:port/db, rediss://
for TLS; a Cluster with addr=host:port parameters, Sentinel with master_name=NAME); when
Redis cannot answer, calls answer Unavailable, at once while it is known down (a PING in
the background, from every 100 ms to every 2 s, finds it back). On a Cluster a domain's
counters share one node unless --redis-hash-tag first-entry spreads them by their
descriptors' first entries; a Cluster master that is down fails at once only the calls
for its slots, until it answers or its replica is promoted (logged once each way, and
rlpkit_store_node_reachable in /metrics). The inputs are reloaded when they change; invalid new inputs
keep the limits in force and the reason is logged.

Both ports bind loopback by default; give :PORT (every interface) to reach them from
elsewhere, as a Pod's probes and Prometheus do. Each closes the connections that send
nothing, stop half-way or stay silent (--grpc-connection-timeout, --grpc-keepalive-*,
--http-read-header-timeout, --http-idle-timeout) and takes a bounded number at once.

The HTTP port (--http-addr, "off" for none, port 0 for any free port) serves
  /metrics  Prometheus metrics, per limit too (rlpkit_limit_*; see docs/serve.md)
  /healthz  200 while the process is up
  /readyz   200 when the limits are loaded and the store answers (Redis: PING,
            answered from a cache for one second; while Redis is known down, at
            once), else 503 with the reason
gRPC health (service "" and the RLS service) follows /readyz.

The same port serves Limitador's check and report, kuadrant.service.ratelimit.v1.
RateLimitService/CheckRateLimit and /Report, which Kuadrant's wasm-shim calls for a
TokenRateLimitPolicy. By default (--check-report limitador) they count as Limitador 2.4:
a check is over when a counter's value plus one exceeds its max and charges nothing, a
report adds its hits_addend (0 counting as 1) without checking, so every request in
flight passes its check and a budget is overshot by all of them. --check-report reserve
makes a check reserve its hits_addend (the request's declared maximum, e.g. max_tokens;
else --reserve-default) all or nothing, and a report settle it to the usage, giving back
what was not used (the reservation is named by a descriptor entry ` + rls.ReservedEntry + `, else
--reserve-default); a reservation never reported expires with its window.

Every flag can also be set in the environment, by the variable in [$...] after it;
a flag on the command line wins. Logs go to stderr: one line per reload and per
change of the store's state, none per call above debug level. SIGINT or SIGTERM
stops the server gracefully.

With --ratelimit-config DIR it serves envoyproxy/ratelimit's configuration files
instead (every file under DIR), with the answers of cmd/ratelimit, the drop-in
replacement for that service (see docs/migrating-from-envoy-ratelimit.md).`

// serveOptions is the command line of "rlpkit serve".
type serveOptions struct {
	limitsFile      string
	paths           []string
	addr            string
	httpAddr        string
	httpAddrFlag    string // the flag (or variable) httpAddr came from, for errors
	metricsAddr     string // deprecated alias of httpAddr
	responseHeaders bool
	maxKeys         int
	caps            rls.RequestCaps
	redisURL        string
	redisKeyPrefix  string
	redisServerTime bool
	redisHashTag    limit.TagBy
	storeTimeout    time.Duration
	nearLimitRatio  float64
	logFormat       string
	logLevel        slog.Level
	reloadInterval  time.Duration
	shutdownTimeout time.Duration
	sources         flagSources // where each flag's value came from, for errors
	cache           storeCacheOptions
	pipeline        pipelineOptions
	bounds          boundsOptions // the listeners' timeouts and connection bounds
	checkReport     rls.CheckReport

	// ratelimitDir holds envoyproxy/ratelimit configuration files, served
	// instead of limitsFile or paths (see serve_ratelimit.go), with its
	// MERGE_DOMAIN_CONFIG, RUNTIME_IGNOREDOTFILES and SHADOW_MODE.
	ratelimitDir                                                        string
	ratelimitMergeDomains, ratelimitIgnoreDotFiles, ratelimitShadowMode bool

	// wrapStore, when set, wraps the counter store; tests use it to hold
	// calls in flight.
	wrapStore func(counter.Store) counter.Store
	// redisHook, when set, is added to the Redis client; tests use it to
	// count what is sent.
	redisHook goredis.Hook
}

// tagByFlag is --redis-hash-tag: a limit.TagBy by its name.
type tagByFlag limit.TagBy

func (f *tagByFlag) String() string { return limit.TagBy(*f).String() }

func (f *tagByFlag) Set(s string) error {
	t, err := limit.ParseTagBy(s)
	*f = tagByFlag(t)
	return err
}

// httpOff is the --http-addr that turns the HTTP port off.
const httpOff = "off"

// runServe implements "rlpkit serve": it serves until SIGINT or SIGTERM,
// with the garbage collector held to gcfloor's floor.
func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	defer gcfloor.Start(gcfloor.DefaultFloor, os.LookupEnv)()
	return serveUntilSignal(args, stdout, stderr, nil)
}

// serveUntilSignal is runServe with serveUntil's ready hook.
func serveUntilSignal(args []string, stdout, stderr io.Writer, ready func(grpcAddr, httpAddr string)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, args, stdout, stderr, ready)
}

// serveUntil is "rlpkit serve" stopping when ctx is done instead of on a signal.
// ready, when not nil, is called with the gRPC and HTTP addresses (the latter
// empty with --http-addr off) once both listen.
func serveUntil(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(grpcAddr, httpAddr string)) int {
	o, err := parseServe(args, os.LookupEnv, stdout)
	if err == nil {
		err = serve(ctx, o, newLogger(stderr, o.logFormat, o.logLevel), ready)
	}
	return exitFor("serve", err, stderr)
}

// addServeFlags defines serve's own flags on fs, into o (the log level as
// text into logLevel).
func addServeFlags(fs *flag.FlagSet, o *serveOptions, logLevel *string) {
	fs.StringVar(&o.limitsFile, "limits", "", "a limits `FILE` in limitador's format (YAML or JSON), or a DIR holding limits.yaml or rlpkit-controller's split output, instead of PATH...")
	fs.StringVar(&o.ratelimitDir, "ratelimit-config", "", "serve the envoyproxy/ratelimit configuration files under `DIR` instead of --limits or PATH...")
	fs.BoolVar(&o.ratelimitMergeDomains, "ratelimit-merge-domains", false, "with --ratelimit-config: merge files sharing a domain (MERGE_DOMAIN_CONFIG)")
	fs.BoolVar(&o.ratelimitIgnoreDotFiles, "ratelimit-ignore-dotfiles", false, "with --ratelimit-config: skip dot files and directories (RUNTIME_IGNOREDOTFILES)")
	fs.BoolVar(&o.ratelimitShadowMode, "ratelimit-shadow-mode", false, "with --ratelimit-config: answer OK overall whatever the limits say (SHADOW_MODE)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8081", "the gRPC listen `address`")
	fs.StringVar(&o.httpAddr, "http-addr", "127.0.0.1:8080", "the HTTP listen `address` for /metrics, /healthz and /readyz; off: none")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "deprecated alias of --http-addr: the HTTP listen `address`")
	fs.BoolVar(&o.responseHeaders, "response-headers", false, "add RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After to responses")
	fs.IntVar(&o.maxKeys, "max-keys", 0, "the memory store's bound on counters (0: 1,000,000)")
	fs.IntVar(&o.caps.MaxDescriptors, "max-descriptors", rls.DefaultMaxDescriptors, "a request of more than `N` descriptors is refused (InvalidArgument)")
	fs.IntVar(&o.caps.MaxEntries, "max-entries", rls.DefaultMaxEntries, "a request with a descriptor of more than `N` entries is refused (InvalidArgument)")
	fs.IntVar(&o.caps.MaxKeyBytes, "max-key-bytes", rls.DefaultMaxKeyBytes, "a request whose domain, entry keys and values total more than `BYTES` is refused (InvalidArgument); the gRPC receive limit follows the three caps")
	fs.StringVar(&o.redisURL, "redis", "", "keep the counters in the Redis at this `URL` instead of in memory")
	fs.StringVar(&o.redisKeyPrefix, "redis-key-prefix", "", "a `prefix` for every Redis key, to share a Redis with other data")
	fs.BoolVar(&o.redisServerTime, "redis-server-time", true, "decide at Redis's clock (TIME), so that servers with skewed clocks agree")
	fs.Var((*tagByFlag)(&o.redisHashTag), "redis-hash-tag", "with --redis: the Redis Cluster hash tag of counter keys: `domain` keeps a domain's counters on one Cluster node and decides every request all or nothing; first-entry tags by domain and a descriptor's first entry, spreading tenants over the Cluster, and decides a request whose descriptors start with different entries per tag, so it can be charged under one tag and refused under another")
	fs.DurationVar(&o.storeTimeout, "redis-timeout", time.Second, "the longest a call waits for Redis; one with a deadline waits at most 9/10 of its time left")
	fs.Float64Var(&o.nearLimitRatio, "near-limit-ratio", 0.8, "the share of a limit above which hits count as near the limit (rlpkit_limit_near_limit_total), from 0 to 1")
	fs.StringVar(&o.logFormat, "log-format", "text", "log `format`: text or json")
	fs.StringVar(logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.DurationVar(&o.reloadInterval, "reload-interval", time.Second, "how often to look for changed inputs (0: never)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long a graceful stop waits for calls in flight")
	addCheckReportFlags(fs, &o.checkReport)
}

// parseServe parses the command line, with the flags not given there taken
// from the environment as lookupEnv reports it.
func parseServe(args []string, lookupEnv func(string) (string, bool), stdout io.Writer) (serveOptions, error) {
	var o serveOptions
	var logLevel string
	fs := newFlagSet("serve")
	addServeFlags(fs, &o, &logLevel)
	addStoreCacheFlags(fs, &o.cache)
	addPipelineFlags(fs, &o.pipeline)
	addBoundsFlags(fs, &o.bounds)
	documentEnv(fs)
	paths, err := parseFlags(fs, args, serveSynopsis, true, stdout)
	if err != nil {
		return o, err
	}
	src, err := setFromEnv(fs, lookupEnv)
	if err != nil {
		return o, err
	}
	o.paths, o.sources = paths, src
	o.httpAddrFlag = src.name("http-addr")
	levelErr := o.logLevel.UnmarshalText([]byte(logLevel))
	switch {
	case o.ratelimitDir != "" && (o.limitsFile != "" || len(paths) > 0):
		return o, usagef("--ratelimit-config DIR is an input of its own; give it without --limits or PATH...")
	case o.ratelimitDir == "" && (o.ratelimitMergeDomains || o.ratelimitIgnoreDotFiles || o.ratelimitShadowMode):
		return o, usagef("--ratelimit-merge-domains, --ratelimit-ignore-dotfiles and --ratelimit-shadow-mode need --ratelimit-config")
	case o.ratelimitDir == "" && (o.limitsFile == "") == (len(paths) == 0):
		return o, usagef("exactly one of --limits FILE and PATH... is required")
	case o.limitsFile == "-" || contains(paths, "-"):
		return o, usagef(`"-" (stdin) cannot be watched for changes; name a file`)
	case o.logFormat != "text" && o.logFormat != "json":
		return o, usagef("%s %q: want text or json", src.name("log-format"), o.logFormat)
	case levelErr != nil:
		return o, usagef("%s %q: want debug, info, warn or error", src.name("log-level"), logLevel)
	case o.maxKeys < 0:
		return o, usagef("%s %d: want 0 or more", src.name("max-keys"), o.maxKeys)
	case o.reloadInterval < 0:
		return o, usagef("%s %v: want 0 or more", src.name("reload-interval"), o.reloadInterval)
	case o.shutdownTimeout <= 0:
		return o, usagef("%s %v: want more than 0", src.name("shutdown-timeout"), o.shutdownTimeout)
	case o.storeTimeout <= 0:
		return o, usagef("%s %v: want more than 0", src.name("redis-timeout"), o.storeTimeout)
	case !(o.nearLimitRatio >= 0 && o.nearLimitRatio <= 1):
		return o, usagef("%s %v: want a ratio from 0 to 1", src.name("near-limit-ratio"), o.nearLimitRatio)
	case o.redisURL == "" && (o.redisKeyPrefix != "" || !o.redisServerTime):
		return o, usagef("--redis-key-prefix and --redis-server-time need --redis")
	case o.redisURL == "" && o.redisHashTag != limit.TagByDomain:
		return o, usagef("%s chooses where counters live in a Redis Cluster; it needs --redis", src.name("redis-hash-tag"))
	case o.redisURL != "" && o.maxKeys != 0:
		return o, usagef("--max-keys bounds the memory store; it has no effect with --redis")
	case o.metricsAddr != "" && isSet(fs, "http-addr"):
		return o, usagef("%s is deprecated and sets --http-addr; give only %s", src.name("metrics-addr"), o.httpAddrFlag)
	}
	if err := checkStoreCacheFlags(&o, fs); err != nil {
		return o, err
	}
	if err := checkPipelineFlags(&o); err != nil {
		return o, err
	}
	if err := checkBoundsFlags(&o); err != nil {
		return o, err
	}
	if err := checkCheckReportFlags(&o); err != nil {
		return o, err
	}
	if err := checkCaps(o.caps, src); err != nil {
		return o, err
	}
	if o.metricsAddr != "" {
		o.httpAddr, o.httpAddrFlag = o.metricsAddr, src.name("metrics-addr")
	}
	return o, nil
}

// checkCaps refuses a cap below 1 or above math.MaxInt32, naming its flag
// or variable.
func checkCaps(c rls.RequestCaps, src flagSources) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"max-descriptors", c.MaxDescriptors}, {"max-entries", c.MaxEntries}, {"max-key-bytes", c.MaxKeyBytes}} {
		if f.v < 1 || f.v > math.MaxInt32 {
			return usagef("%s %d: want a whole number from 1 to %d", src.name(f.name), f.v, math.MaxInt32)
		}
	}
	return nil
}

// isSet reports whether flag name was given on the command line or set from
// the environment.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// newLogger returns serve's logger: text or JSON lines on w from level up.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	return serving.NewLogger(w, format, level)
}

// serve runs the server until ctx is done, then stops it gracefully. It returns
// an error when the limits cannot be loaded or a listener cannot be opened.
func serve(ctx context.Context, o serveOptions, log *slog.Logger, ready func(grpcAddr, httpAddr string)) error {
	if o.metricsAddr != "" {
		log.Warn("--metrics-addr is deprecated; use --http-addr (RLPKIT_HTTP_ADDR)")
	}
	r := &serveRun{o: o, log: log, src: limitSource{file: o.limitsFile, paths: o.paths, notice: noticeLogger(log)}}
	if err := r.loadLimits(); err != nil {
		return err
	}
	cs, err := openStore(o, log)
	if err != nil {
		return err
	}
	defer cs.close()
	r.storeKind = cs.kind
	if err := r.start(cs); err != nil {
		return err
	}
	lis, httpLis, err := r.listen()
	if err != nil {
		return err
	}
	return r.run(ctx, lis, httpLis, ready)
}

// serveRun is what serve runs: the inputs, the service, its metrics and
// health.
type serveRun struct {
	o         serveOptions
	log       *slog.Logger
	src       limitSource
	limits    []limitador.Limit
	loadedAt  string // the inputs' fingerprint when loaded
	storeKind string
	metrics   *serveMetrics
	hs        *serving.Health
	sh        *storeHealth
	svc       *rls.Service
	rlCfg     *ratelimitServe // with --ratelimit-config
}

// loadLimits loads the limits of the inputs (none with --ratelimit-config,
// which loads its own) and logs their warnings.
func (r *serveRun) loadLimits() error {
	var warnings []string
	if r.o.ratelimitDir == "" {
		r.loadedAt = fingerprint(r.src.inputs()) // before loading: watch then sees any later change
		var err error
		if r.limits, warnings, err = r.src.load(); err != nil {
			return err
		}
	}
	warnLimits(r.log, r.src, warnings)
	return nil
}

// start builds the service over cs, with its metrics and health.
func (r *serveRun) start(cs *counterStore) error {
	var store counter.Store = cs.Store
	if cs.kind == "redis" {
		store = boundedStore{Store: store, timeout: r.o.storeTimeout, timer: r.o.cache.redisApproximate}
	}
	if r.o.wrapStore != nil {
		store = r.o.wrapStore(store)
	}
	r.metrics = newServeMetrics(r.o.nearLimitRatio)
	if cs.health != nil && cs.health.breaker != nil {
		r.metrics.registry.MustRegister(nodeCollector{cs.health.breaker}) // the Cluster masters' health
	}
	r.hs = serving.NewHealth(rlsv3.RateLimitService_ServiceDesc.ServiceName)
	r.sh = cs.health
	warnNoAdjust(r.log, cs.Store)
	store = instrument(store, r.metrics, r.log)
	svc, err := rls.New(r.limits, rls.Options{Store: store, ResponseHeaders: r.o.responseHeaders, Caps: r.o.caps, TagBy: r.o.redisHashTag, Observe: r.metrics.observe, CheckReport: r.o.checkReport})
	if err != nil {
		return err
	}
	r.svc = svc
	r.metrics.loaded(len(r.limits))
	if r.o.ratelimitDir != "" {
		if r.rlCfg, err = newRatelimitServe(r.o, store, svc, r.metrics, r.log); err != nil {
			return err
		}
	}
	return nil
}

// listen opens the gRPC port and, unless it is off, the HTTP port, each
// taking at most --grpc-max-connections or --http-max-connections
// connections at once.
func (r *serveRun) listen() (lis, httpLis net.Listener, err error) {
	if lis, err = net.Listen("tcp", r.o.addr); err != nil {
		return nil, nil, fmt.Errorf("rlpkit serve: %s: %w", r.o.sources.name("addr"), err)
	}
	if r.o.httpAddr != httpOff {
		if httpLis, err = net.Listen("tcp", r.o.httpAddr); err != nil {
			lis.Close()
			return nil, nil, fmt.Errorf("rlpkit serve: %s: %w", r.o.httpAddrFlag, err)
		}
		httpLis = serving.Limit(httpLis, r.o.bounds.http.MaxConns)
	}
	return serving.Limit(lis, r.o.bounds.grpc.MaxConns), httpLis, nil
}

// run serves on lis and httpLis (nil when off) until ctx is done or a
// listener fails, then stops.
func (r *serveRun) run(ctx context.Context, lis, httpLis net.Listener, ready func(grpcAddr, httpAddr string)) error {
	srv := grpc.NewServer(append(r.svc.ServerOptions(), r.o.bounds.grpc.ServerOptions()...)...)
	rls.Register(srv, r.svc)
	rls.RegisterKuadrant(srv, r.svc)
	serving.Register(srv, r.hs)
	// The first state, logged when unreachable, then every change.
	r.sh.start(context.Background(), func(reachable bool) {
		r.metrics.storeReachable(reachable)
		r.hs.Set(reachable || !r.sh.follows)
	})

	// Every goroutine reports here when it ends; an early end is fatal.
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(lis) }()
	var httpSrv *http.Server
	httpAt := ""
	if httpLis != nil {
		httpSrv = serving.NewHTTPServer(httpHandler(r.metrics, r.sh), r.o.bounds.http)
		httpAt = httpLis.Addr().String()
		go func() { errc <- httpSrv.Serve(httpLis) }()
	}
	limits, inputs := len(r.limits), r.src.String() // before a reload can change them
	if r.rlCfg != nil {
		limits, inputs = r.rlCfg.limits, r.rlCfg.String()
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	var bg sync.WaitGroup
	r.background(watchCtx, &bg)
	r.log.Info("serving", "addr", lis.Addr().String(), "http_addr", httpAt, "store", r.storeKind,
		"limits", limits, "inputs", inputs)
	if ready != nil {
		ready(lis.Addr().String(), httpAt)
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		r.log.Error("listener failed", "err", serveErr)
	}
	stopWatch()
	bg.Wait()
	r.stop(srv, httpSrv)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("rlpkit serve: %w", serveErr)
	}
	return nil
}

// background starts the reload watch, until ctx is done. (The store's
// breaker PINGs Redis in a goroutine of its own, until the store closes.)
func (r *serveRun) background(ctx context.Context, bg *sync.WaitGroup) {
	bg.Go(func() {
		if r.rlCfg != nil {
			r.rlCfg.watch(ctx, r.o.reloadInterval)
			return
		}
		watch(ctx, r.src, r.loadedAt, r.o.reloadInterval, r.svc, r.metrics, r.log)
	})
}

// stop fails the health checks, stops gRPC gracefully within
// --shutdown-timeout, then the HTTP server within another.
func (r *serveRun) stop(srv *grpc.Server, httpSrv *http.Server) {
	r.log.Info("stopping", "timeout", r.o.shutdownTimeout.String())
	r.hs.Shutdown()
	gctx, gcancel := context.WithTimeout(context.Background(), r.o.shutdownTimeout)
	defer gcancel()
	<-serving.GracefulStop(gctx, srv, func() { r.log.Warn("graceful stop timed out; closing the remaining calls") })
	if httpSrv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), r.o.shutdownTimeout)
		defer cancel()
		if err := httpSrv.Shutdown(sctx); err != nil {
			httpSrv.Close()
		}
	}
	r.log.Info("stopped")
}
