package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/ratelimit/service"
)

// ratelimitServe serves envoyproxy/ratelimit's configuration files
// (--ratelimit-config DIR) with the semantics of cmd/ratelimit, the drop-in
// replacement: the same packages, with flags instead of its environment.
type ratelimitServe struct {
	dir  envoyratelimit.DirOptions
	load envoyratelimit.LoadOptions
	svc  *service.Service
	m    *serveMetrics
	log  *slog.Logger
	last string // the directory's fingerprint when last read
}

// newRatelimitServe loads DIR (every file under it, recursively, as the
// reference reads its application directory) and returns the service over
// store. A configuration that does not load is an error at start.
//
// Its per-rule statistics are serve's per-limit metrics (rlpkit_limit_*),
// labelled by domain and by the reference's statistics key below the domain
// (such as "message_type_marketing.to_number"); reloads count in
// rlpkit_limits_reloads_total.
func newRatelimitServe(o serveOptions, store counter.Store, m *serveMetrics, log *slog.Logger) (*ratelimitServe, error) {
	observe := func(key string, c envoyratelimit.RuleCounts) {
		domain, name, _ := strings.Cut(key, ".")
		m.limitHits.WithLabelValues(domain, name).Add(float64(c.TotalHits))
		m.limitWithin.WithLabelValues(domain, name).Add(float64(c.WithinLimit))
		m.limitNear.WithLabelValues(domain, name).Add(float64(c.NearLimit))
		m.limitOver.WithLabelValues(domain, name).Add(float64(c.OverLimit))
	}
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: store, ShadowMode: o.ratelimitShadowMode, NearLimitRatio: o.nearLimitRatio, Observe: observe})
	if err != nil {
		return nil, err
	}
	svc, err := service.New(service.Options{Evaluator: ev, ResponseHeaders: o.responseHeaders})
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(o.ratelimitDir)
	r := &ratelimitServe{
		dir:  envoyratelimit.DirOptions{Root: filepath.Dir(dir), AppDirectory: filepath.Base(dir), IgnoreDotFiles: o.ratelimitIgnoreDotFiles},
		load: envoyratelimit.LoadOptions{MergeDomains: o.ratelimitMergeDomains},
		svc:  svc,
		m:    m,
		log:  log,
	}
	r.last = r.fingerprint() // before reading: a change while reading is seen
	cfg, err := r.read()
	if err != nil {
		return nil, fmt.Errorf("rlpkit serve: %s: %w", o.sources.name("ratelimit-config"), err)
	}
	svc.SetConfig(cfg)
	return r, nil
}

func (r *ratelimitServe) read() (*envoyratelimit.Config, error) {
	files, err := envoyratelimit.ReadDir(r.dir)
	if err != nil {
		return nil, err
	}
	return envoyratelimit.Load(files, r.load)
}

// watch reloads the configuration when a file under DIR changes, every
// interval (0: never); an invalid configuration keeps the one in force and
// is logged.
func (r *ratelimitServe) watch(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp := r.fingerprint()
		if fp == r.last {
			continue
		}
		r.last = fp
		cfg, err := r.read()
		if err != nil {
			r.m.reloadFailed()
			r.log.Error("reload failed; keeping the configuration in force", "err", strings.ReplaceAll(err.Error(), "\n", "; "))
			continue
		}
		r.m.reloads.WithLabelValues("success").Inc()
		r.m.reloadOK.Set(1)
		r.svc.SetConfig(cfg)
		r.log.Info("reloaded the ratelimit configuration", "domains", len(cfg.Domains()))
	}
}

// fingerprint is every file's path, size, mode and modification time.
func (r *ratelimitServe) fingerprint() string {
	var b strings.Builder
	filepath.WalkDir(r.dir.Dir(), func(path string, d fs.DirEntry, err error) error {
		if fi, serr := os.Stat(path); err == nil && serr == nil {
			fmt.Fprintf(&b, "%s %d %v %d\n", path, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
