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
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/overlimitcache"
	"github.com/rlpkit/rlpkit/rls"
)

// addrs are the addresses the servers listen on, for tests.
type addrs struct{ grpc, http, debug string }

// run starts the service from the environment and serves until ctx is
// done. ready, when set, is called once every listener is open.
func run(ctx context.Context, lookup func(string) (string, bool), environ []string, stderr io.Writer, ready func(addrs)) int {
	s, warnings, err := readSettings(lookup, environ)
	log := serving.NewLogger(stderr, s.logFormat, s.logLevel)
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
	be, err := openBackend(s, log)
	if err != nil {
		return err
	}
	defer be.close()
	st := &stats{}
	store := be.Store
	if s.localCacheBytes > 0 {
		store = overlimitcache.New(store, s.localCacheBytes)
	}
	eo := envoyratelimit.Options{Store: store, ShadowMode: s.shadowMode, NearLimitRatio: s.nearLimitRatio}
	if !s.disableStats {
		eo.Observe = st.observe
	}
	ev, err := envoyratelimit.NewEvaluator(eo)
	if err != nil {
		return err
	}
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
	svc := rls.NewService(rls.Options{
		Conventions: &conv, ResponseHeaders: s.responseHeaders,
		Observe: func(o rls.Outcome) {
			if s.disableStats {
				return
			}
			var se *limit.StoreError
			st.call(o.Duration, o.Err, o.ShadowedOverLimit, errors.As(o.Err, &se))
		},
	})
	var loaded atomic.Bool

	var dump atomic.Pointer[string]
	empty := ""
	dump.Store(&empty)
	ld := &loader{s: s, log: log, stats: st, apply: func(c *envoyratelimit.Config) {
		svc.SetEvaluator(ev.WithConfig(c), 0)
		loaded.Store(true)
		d := c.Dump()
		dump.Store(&d)
	}}
	if err := ld.start(); err != nil {
		log.Error("no rate limit configuration loaded: every call fails until a valid one is", "dir", ld.dirOptions().Dir())
	}

	// gRPC.
	gopts := rls.ServerOptions()
	if s.grpcTLS {
		creds, err := grpcTLS(s)
		if err != nil {
			return err
		}
		gopts = append(gopts, grpc.Creds(creds))
	}
	gs := grpc.NewServer(gopts...)
	rls.Register(gs, svc)
	hs := serving.NewHealth("ratelimit")
	hs.Set(true)
	serving.Register(gs, hs)

	// HTTP.
	var stopping atomic.Bool
	mux := http.NewServeMux()
	mux.Handle("/json", svc.JSONHandler())
	mux.HandleFunc("/healthcheck", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case stopping.Load():
			http.Error(w, "shutting down", http.StatusInternalServerError)
		case s.healthyWithConfig && !loaded.Load():
			http.Error(w, "no rate limit configuration loaded", http.StatusInternalServerError)
		default:
			w.Write([]byte("OK"))
		}
	})

	// Debug port.
	reg := prometheus.NewRegistry()
	if !s.disableStats {
		reg.MustRegister(newPromCollector(st))
	}
	dmux := http.NewServeMux()
	dmux.HandleFunc("/rlconfig", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, *dump.Load()) })
	dmux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, st.text()) })
	dmux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	dmux.HandleFunc("/debug/pprof/", pprof.Index)
	dmux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	dmux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	dmux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	dmux.HandleFunc("/debug/pprof/trace", pprof.Trace)

	listen := func(host string, port int) (net.Listener, error) {
		return net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	}
	gl, err := listen(s.grpcHost, s.grpcPort)
	if err != nil {
		return fmt.Errorf("GRPC_HOST, GRPC_PORT: %w", err)
	}
	hl, err := listen(s.host, s.port)
	if err != nil {
		gl.Close()
		return fmt.Errorf("HOST, PORT: %w", err)
	}
	dl, err := listen(s.debugHost, s.debugPort)
	if err != nil {
		gl.Close()
		hl.Close()
		return fmt.Errorf("DEBUG_HOST, DEBUG_PORT: %w", err)
	}
	servers := []*http.Server{{Handler: mux}, {Handler: dmux}}
	listeners := []net.Listener{hl, dl}
	if s.usePrometheus && !s.disableStats {
		pl, err := net.Listen("tcp", s.prometheusAddr)
		if err != nil {
			gl.Close()
			hl.Close()
			dl.Close()
			return fmt.Errorf("PROMETHEUS_ADDR: %w", err)
		}
		pmux := http.NewServeMux()
		pmux.Handle(s.prometheusPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, &http.Server{Handler: pmux})
		listeners = append(listeners, pl)
	}

	var wg sync.WaitGroup
	bg, cancel := context.WithCancel(context.Background())
	defer cancel()
	wg.Go(func() { ld.watch(bg) })
	if s.useStatsd && !s.disableStats {
		sink, err := newStatsdSink(st, net.JoinHostPort(s.statsdHost, strconv.Itoa(s.statsdPort)), s.statsFlush, s.extraTags, log)
		if err != nil {
			log.Warn("statsd disabled", "err", err)
		} else {
			wg.Go(func() { sink.run(bg) })
		}
	}
	wg.Go(func() { gs.Serve(gl) })
	for i, srv := range servers {
		l := listeners[i]
		wg.Go(func() { srv.Serve(l) })
	}
	log.Info("serving", "grpc", gl.Addr().String(), "http", hl.Addr().String(), "debug", dl.Addr().String(), "backend", be.kind)
	if ready != nil {
		ready(addrs{grpc: gl.Addr().String(), http: hl.Addr().String(), debug: dl.Addr().String()})
	}

	<-ctx.Done()
	stopping.Store(true)
	hs.Shutdown()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	for _, srv := range servers {
		srv.Shutdown(sctx)
	}
	serving.GracefulStop(sctx, gs, nil) // closes the calls left at the deadline, without waiting for their handlers
	cancel()
	wg.Wait()
	return nil
}

// grpcTLS is the server's TLS of GRPC_SERVER_TLS_*, verifying client
// certificates against GRPC_CLIENT_TLS_CACERT when set.
func grpcTLS(s settings) (credentials.TransportCredentials, error) {
	cert, err := tls.LoadX509KeyPair(s.grpcTLSCert, s.grpcTLSKey)
	if err != nil {
		return nil, fmt.Errorf("GRPC_SERVER_TLS_CERT, GRPC_SERVER_TLS_KEY: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if s.grpcCA != "" {
		pem, err := os.ReadFile(s.grpcCA)
		if err != nil {
			return nil, fmt.Errorf("GRPC_CLIENT_TLS_CACERT: %w", err)
		}
		c.ClientCAs = x509.NewCertPool()
		if !c.ClientCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("GRPC_CLIENT_TLS_CACERT=%s: no PEM certificate in the file", s.grpcCA)
		}
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return credentials.NewTLS(c), nil
}
