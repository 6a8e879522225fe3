package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/rls"
)

// ratelimitServe serves envoyproxy/ratelimit's configuration files
// (--ratelimit-config DIR) with the semantics of cmd/ratelimit, the drop-in
// replacement: the same packages, with flags instead of its environment.
type ratelimitServe struct {
	dir  envoyratelimit.DirOptions
	load envoyratelimit.LoadOptions
	ev   *envoyratelimit.Evaluator
	svc  *rls.Service
	m    *serveMetrics
	log  *slog.Logger
	last string // the directory's fingerprint before it was first read
	// limits counts the rules in force, for the log.
	limits int
}

// String describes what is served, for logs: "ratelimit config DIR".
func (r *ratelimitServe) String() string {
	return "ratelimit config " + filepath.Join(r.dir.Root, r.dir.AppDirectory)
}

// newRatelimitServe loads DIR (every file under it, recursively, as the
// reference reads its application directory) and has svc answer with it
// over store. A configuration that does not load is an error at start.
//
// Its per-rule statistics are serve's per-limit metrics (rlpkit_limit_*),
// labelled, as for every format, by domain and by the configured name of
// the limit (a rule's name, else its configured path below the domain,
// such as "message_type_marketing.to_number"), never by a request value;
// reloads count in rlpkit_limits_reloads_total. A failure to count a
// refused request's hits on the counters it is over leaves the answer as
// it was (no Options.OnCountOverError): store is serve's instrumented
// store, which counts it in rlpkit_store_errors_total.
func newRatelimitServe(o serveOptions, store counter.Store, svc *rls.Service, m *serveMetrics, log *slog.Logger) (*ratelimitServe, error) {
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: store, ShadowMode: o.ratelimitShadowMode, NearLimitRatio: o.nearLimitRatio, TagBy: o.redisHashTag})
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(o.ratelimitDir)
	r := &ratelimitServe{
		dir:  envoyratelimit.DirOptions{Root: filepath.Dir(dir), AppDirectory: filepath.Base(dir), IgnoreDotFiles: o.ratelimitIgnoreDotFiles},
		load: envoyratelimit.LoadOptions{MergeDomains: o.ratelimitMergeDomains},
		ev:   ev,
		svc:  svc,
		m:    m,
		log:  log,
	}
	r.last = r.fingerprint() // before reading: a change while reading is seen
	cfg, err := r.read()
	if err != nil {
		return nil, fmt.Errorf("rlpkit serve: %s: %w", o.sources.name("ratelimit-config"), err)
	}
	r.apply(cfg)
	return r, nil
}

// apply has the service answer with cfg.
func (r *ratelimitServe) apply(cfg *envoyratelimit.Config) {
	n := cfg.Limits()
	r.limits = n
	r.svc.SetEvaluator(r.ev.WithConfig(cfg), n)
	r.m.loaded(n)
}

func (r *ratelimitServe) read() (*envoyratelimit.Config, error) {
	files, err := envoyratelimit.ReadDir(r.dir)
	if err != nil {
		return nil, err
	}
	return envoyratelimit.Load(files, r.load)
}

// watch reloads the configuration when a file or directory under DIR
// changes, looking every interval (0: never) and reloading at the first look
// that sees a change; an invalid configuration keeps the one in force and is
// logged.
func (r *ratelimitServe) watch(ctx context.Context, interval time.Duration) {
	serving.Watcher{Interval: interval, Look: r.fingerprint, Changed: r.reload}.Run(ctx, r.last)
}

// reload reads the configuration again and has the service answer with it,
// or keeps the one in force.
func (r *ratelimitServe) reload() {
	cfg, err := r.read()
	if err != nil {
		r.m.reloadFailed()
		r.log.Error("reload failed; keeping the configuration in force", "err", strings.ReplaceAll(err.Error(), "\n", "; "))
		return
	}
	r.apply(cfg)
	r.log.Info("reloaded the ratelimit configuration", "domains", len(cfg.Domains()))
}

// fingerprint is every file's and directory's path, size, mode and
// modification time under DIR.
func (r *ratelimitServe) fingerprint() string {
	return serving.Fingerprint(true, r.dir.Dir())
}
