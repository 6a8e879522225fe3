package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/statsd_exporter/pkg/mapper"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/overlimitcache"
	"github.com/rlpkit/rlpkit/rls"
)

// addrs are the addresses the servers listen on, for tests.
type addrs struct{ grpc, http, debug, prom string }

// run starts the service from the environment and serves until ctx is
// done. ready, when set, is called once every listener is open.
func run(ctx context.Context, lookup func(string) (string, bool), environ []string, stderr io.Writer, ready func(addrs)) int {
	return runTweaked(ctx, lookup, environ, stderr, ready, nil)
}

// runTweaked is run with the settings changed by tweak, when not nil,
// before serving; tests use it to set what no variable sets.
func runTweaked(ctx context.Context, lookup func(string) (string, bool), environ []string, stderr io.Writer, ready func(addrs), tweak func(*settings)) int {
	s, warnings, err := readSettings(lookup, environ)
	if tweak != nil {
		tweak(&s)
	}
	log := newLogger(stderr, s.logFormat, s.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "ratelimit: invalid environment:\n%v\n", err)
		return 1
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	if err := serve(ctx, s, log, ready); err != nil {
		fmt.Fprintf(stderr, "ratelimit: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, s settings, log *slog.Logger, ready func(addrs)) error {
	health := newStoreHealth(s, log)
	be, err := openBackend(s, log, health)
	if err != nil {
		return err
	}
	defer be.close()
	// As the reference: no port opens before Redis answers.
	if err := be.waitStartup(ctx, s.redis.startup, log, realClock); err != nil {
		if errors.Is(err, errStartStopped) {
			return nil
		}
		return err
	}
	tr, err := newTracer(s.tracing, log)
	if err != nil {
		return err
	}
	defer tr.shutdown(log)
	store := be.Store
	if be.kind == "redis" {
		store = tr.store(store)
	}
	srv, err := newServer(s, log, store, health, tr)
	if err != nil {
		return err
	}
	gs, err := srv.grpcServer()
	if err != nil {
		return err
	}
	if srv.xds != nil {
		xctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer stop()
		wg.Go(func() { srv.xds.run(xctx) })
		if !s.forceStartNoConfig {
			// As the reference: no port opens before the first response.
			srv.log.Info("waiting for the first xDS response before serving", "server", s.xds.serverURL)
			if srv.xds.waitFirst(ctx) != nil {
				return nil
			}
		}
	}
	ls, err := srv.listen()
	if err != nil {
		return err
	}
	return srv.run(ctx, gs, ls, be.kind, ready)
}

// instance is what serve runs: the service, its configuration loader and
// its statistics, and the state the HTTP endpoints read.
type instance struct {
	s        settings
	log      *slog.Logger
	st       *stats
	svc      *rls.Service
	ld       *loader    // CONFIG_TYPE=FILE
	xds      *xdsClient // CONFIG_TYPE=GRPC_XDS_SOTW
	reg      *prometheus.Registry
	health   *storeHealth // the backend's state and the gRPC health it sets
	tr       *tracer      // nil: tracing off
	stopping atomic.Bool
	dump     atomic.Pointer[string]
}

// newServer builds the service over store with the reference's
// conventions and loads the configuration once (a failure leaves every
// call failing until a valid one is loaded, as the reference does).
func newServer(s settings, log *slog.Logger, store counter.Store, health *storeHealth, tr *tracer) (*instance, error) {
	srv := &instance{s: s, log: log, st: newStats(s.statsMaxKeys), reg: prometheus.NewRegistry(), health: health, tr: tr}
	srv.reg.MustRegister(health)                         // the Redis Cluster masters' health
	if s.localCacheBytes > 0 && !s.refKeys.reference() { // the reference's store has its own
		store = overlimitcache.New(store, s.localCacheBytes)
	}
	eo := envoyratelimit.Options{Store: store, ShadowMode: s.shadowMode, QuotaMode: s.quotaMode,
		DynamicMetadata: s.dynamicMetadata, NearLimitRatio: s.nearLimitRatio, TagBy: s.redisHashTag, Keys: s.refKeys.format}
	if !s.disableStats {
		eo.Observe = srv.st.observe
		eo.OnCountOverError = srv.st.countOverError
		var m *mapper.MetricMapper
		if s.usePrometheus {
			// The reference's Prometheus sink maps the statistics by the
			// file's rules, or by its built-in ones.
			var err error
			if s.prometheusMapper != "" {
				m, err = loadMapper(s.prometheusMapper)
			} else {
				m, err = defaultMapper()
			}
			if err != nil {
				return nil, err
			}
		}
		srv.reg.MustRegister(newPromCollector(srv.st, m, responseTimeMillis(s)))
	}
	ev, err := envoyratelimit.NewEvaluator(eo)
	if err != nil {
		return nil, err
	}
	srv.svc = rls.NewService(rls.Options{Conventions: conventions(s), ResponseHeaders: s.responseHeaders, Caps: s.caps, Observe: srv.observe, Clock: s.refKeys.clock})
	empty := ""
	srv.dump.Store(&empty)
	apply := func(c *envoyratelimit.Config) {
		srv.svc.SetEvaluator(srv.tr.evaluator(ev.WithConfig(c)), c.Limits())
		d := c.Dump()
		srv.dump.Store(&d)
		health.configLoaded(s.healthyWithConfig, len(c.Domains()))
	}
	if s.configType == configXDS {
		srv.xds, err = newXDSClient(s.xds, log, func(resp *discoveryv3.DiscoveryResponse) error {
			return srv.applyXDS(resp, apply)
		})
		return srv, err
	}
	srv.ld = &loader{s: s, log: log, stats: srv.st, apply: apply}
	srv.ld.start() // a failure is logged, saying what happens meanwhile
	return srv, nil
}

// conventions are envoyproxy/ratelimit's, with the header names of
// LIMIT_*_HEADER.
func conventions(s settings) *rls.Conventions {
	conv := rls.EnvoyRateLimit
	if s.headerLimit != "" {
		conv.HeaderLimit = s.headerLimit
	}
	if s.headerRemaining != "" {
		conv.HeaderRemaining = s.headerRemaining
	}
	if s.headerReset != "" {
		conv.HeaderReset = s.headerReset
	}
	return &conv
}

// observe counts one call in the reference's statistics.
func (srv *instance) observe(o rls.Outcome) {
	if srv.s.disableStats {
		return
	}
	var se *limit.StoreError
	srv.st.call(o.Duration, o.Err, o.ShadowedOverLimit, errors.As(o.Err, &se))
	if o.Code == codes.OK && !o.Configured {
		// The reference counts each descriptor it looks up in a domain it
		// does not have.
		srv.st.notFound.add(o.Domain, o.Descriptors)
	}
}

// grpcServer returns the gRPC server: the RLS service, health (service
// "ratelimit") and reflection, with TLS when GRPC_SERVER_TLS_* ask for it,
// a receive limit that follows the caps (MAX_*_PER_*; the reference
// has no variable for its own, gRPC's default of 4 MiB), and the
// timeouts and keepalive of RLPKIT_GRPC_* and GRPC_MAX_CONNECTION_AGE*.
func (srv *instance) grpcServer() (*grpc.Server, error) {
	gopts := append(srv.svc.ServerOptions(), srv.s.bounds.grpc.ServerOptions()...)
	gopts = append(gopts, srv.tr.serverOptions()...)
	if srv.s.grpcTLS {
		creds, err := grpcTLS(srv.s, srv.log)
		if err != nil {
			return nil, err
		}
		gopts = append(gopts, grpc.Creds(creds))
	}
	gs := grpc.NewServer(gopts...)
	rls.Register(gs, srv.svc)
	return gs, nil
}

// httpMux is the HTTP port: POST /json and GET /healthcheck.
func (srv *instance) httpMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/json", srv.tr.httpHandler(srv.svc.JSONHandler()))
	mux.HandleFunc("/healthcheck", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case srv.stopping.Load():
			http.Error(w, "shutting down", http.StatusInternalServerError)
		case !srv.health.healthy():
			http.Error(w, srv.health.why(), http.StatusInternalServerError)
		default:
			w.Write([]byte("OK"))
		}
	})
	return mux
}

// debugEndpoints are the debug port's endpoints its root lists, as the
// reference's does: "path: help" lines, sorted.
const debugEndpoints = `/debug/pprof/: root of various pprof endpoints. hit for help.
/debug/pprof/profile: CPU profiling endpoint
/debug/pprof/trace: trace endpoint
/metrics: the statistics as Prometheus metrics
/rlconfig: print out the currently loaded configuration for debugging
/stats: print out stats
`

// debugMux is the debug port: /rlconfig, /stats, /metrics and pprof, and
// the list of them at any other path.
func (srv *instance) debugMux() *http.ServeMux {
	dmux := http.NewServeMux()
	dmux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, debugEndpoints) })
	dmux.HandleFunc("/rlconfig", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, *srv.dump.Load()) })
	dmux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, srv.st.text()) })
	dmux.Handle("/metrics", promhttp.HandlerFor(srv.reg, promhttp.HandlerOpts{}))
	dmux.HandleFunc("/debug/pprof/", pprof.Index)
	dmux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	dmux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	dmux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	dmux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return dmux
}

// listeners are the ports serve opens; prom is nil without USE_PROMETHEUS.
type listeners struct {
	grpc, http, debug, prom net.Listener
}

// listen opens every port, or none: a port that cannot be opened closes
// those opened before it and is an error naming its variables. Each takes
// at most RLPKIT_GRPC_MAX_CONNECTIONS or RLPKIT_HTTP_MAX_CONNECTIONS
// connections at once.
func (srv *instance) listen() (*listeners, error) {
	s := srv.s
	ls := &listeners{}
	var opened []net.Listener
	open := func(what, addr string) (net.Listener, error) {
		network := "tcp"
		if what == "GRPC_UDS" {
			network = "unix"
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			for _, o := range opened {
				o.Close()
			}
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		opened = append(opened, l)
		maxConns := s.bounds.http.MaxConns
		if what == "GRPC_UDS" || what == "GRPC_HOST, GRPC_PORT" {
			maxConns = s.bounds.grpc.MaxConns
		}
		return serving.Limit(l, maxConns), nil
	}
	hostPort := func(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
	var err error
	if s.grpcUDS != "" {
		ls.grpc, err = open("GRPC_UDS", s.grpcUDS)
	} else {
		ls.grpc, err = open("GRPC_HOST, GRPC_PORT", hostPort(s.grpcHost, s.grpcPort))
	}
	if err != nil {
		return nil, err
	}
	if ls.http, err = open("HOST, PORT", hostPort(s.host, s.port)); err != nil {
		return nil, err
	}
	if ls.debug, err = open("DEBUG_HOST, DEBUG_PORT", hostPort(s.debugHost, s.debugPort)); err != nil {
		return nil, err
	}
	if s.usePrometheus && !s.disableStats {
		if ls.prom, err = open("PROMETHEUS_ADDR", s.prometheusAddr); err != nil {
			return nil, err
		}
	}
	return ls, nil
}

// run serves on ls until ctx is done, then stops: the health checks fail,
// the HTTP servers shut down, then gRPC stops gracefully, all within 10 s.
func (srv *instance) run(ctx context.Context, gs *grpc.Server, ls *listeners, backend string, ready func(addrs)) error {
	hs := srv.health.hs
	srv.health.start()
	serving.Register(gs, hs)
	b := srv.s.bounds
	servers := []*http.Server{serving.NewHTTPServer(srv.httpMux(), b.http), serving.NewHTTPServer(srv.debugMux(), b.debugBounds())}
	lis := []net.Listener{ls.http, ls.debug}
	if ls.prom != nil {
		pmux := http.NewServeMux()
		pmux.Handle(srv.s.prometheusPath, promhttp.HandlerFor(srv.reg, promhttp.HandlerOpts{}))
		servers = append(servers, serving.NewHTTPServer(pmux, b.http))
		lis = append(lis, ls.prom)
	}
	var wg sync.WaitGroup
	bg, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.background(bg, &wg)
	wg.Go(func() { gs.Serve(ls.grpc) })
	for i, hsrv := range servers {
		l := lis[i]
		wg.Go(func() { hsrv.Serve(l) })
	}
	at := addrs{grpc: ls.grpc.Addr().String(), http: ls.http.Addr().String(), debug: ls.debug.Addr().String()}
	served := []any{"grpc", at.grpc, "http", at.http, "debug", at.debug}
	if ls.prom != nil {
		at.prom = ls.prom.Addr().String()
		served = append(served, "prometheus", at.prom)
	}
	warnExposedDebug(srv.log, ls.debug.Addr())
	srv.log.Info("serving", append(served, "backend", backend)...)
	if ready != nil {
		ready(at)
	}

	<-ctx.Done()
	srv.stopping.Store(true)
	hs.Shutdown()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	for _, hsrv := range servers {
		hsrv.Shutdown(sctx)
	}
	serving.GracefulStop(sctx, gs, nil) // closes the calls left at the deadline, without waiting for their handlers
	cancel()
	wg.Wait()
	return nil
}

// background starts the reload watch, the periods of the statistics keys
// and, with USE_STATSD, the statsd sink, until ctx is done.
func (srv *instance) background(ctx context.Context, wg *sync.WaitGroup) {
	if srv.ld != nil {
		wg.Go(func() { srv.ld.watch(ctx) })
	}
	s := srv.s
	if s.disableStats {
		return
	}
	wg.Go(func() { serving.Every(ctx, statsKeyPeriod, srv.st.rules.tick) })
	if !s.useStatsd {
		return
	}
	sink := newStatsdSink(srv.st, s.statsdProtocol, net.JoinHostPort(s.statsdHost, strconv.Itoa(s.statsdPort)), s.statsFlush, s.extraTags, srv.log)
	wg.Go(func() { sink.run(ctx) })
}

// grpcTLS is the server's TLS of GRPC_SERVER_TLS_*, its certificate
// reloaded when the files change (certReloader), verifying client
// certificates against GRPC_CLIENT_TLS_CACERT when set.
func grpcTLS(s settings, log *slog.Logger) (credentials.TransportCredentials, error) {
	certs, err := newCertReloader(s.grpcTLSCert, s.grpcTLSKey, log)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{GetCertificate: certs.getCertificate, MinVersion: tls.VersionTLS12}
	if s.grpcCA != "" {
		pool, err := certPool("GRPC_CLIENT_TLS_CACERT", s.grpcCA)
		if err != nil {
			return nil, err
		}
		c.ClientCAs = pool
		c.ClientAuth = tls.RequireAndVerifyClientCert
		if s.grpcClientSAN != "" {
			c.VerifyPeerCertificate = verifyClientSAN(s.grpcClientSAN)
		}
	}
	return credentials.NewTLS(c), nil
}

// verifyClientSAN checks, as the reference's GRPC_CLIENT_TLS_SAN, that the
// verified client certificate is valid for san (a DNS name or an IP
// address among its subject alternative names).
func verifyClientSAN(san string) func([][]byte, [][]*x509.Certificate) error {
	return func(_ [][]byte, chains [][]*x509.Certificate) error {
		if len(chains) == 0 || len(chains[0]) == 0 {
			return errors.New("GRPC_CLIENT_TLS_SAN: no verified client certificate")
		}
		if err := chains[0][0].VerifyHostname(san); err != nil {
			return fmt.Errorf("GRPC_CLIENT_TLS_SAN: %w", err)
		}
		return nil
	}
}
