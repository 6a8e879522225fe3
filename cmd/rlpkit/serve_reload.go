package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/rls"
)

// fingerprint describes the inputs as the file system reports them: every
// file's path, size, modification time and mode, directories walked
// recursively, symbolic links followed to what they name (so that a
// Kubernetes ConfigMap volume, which swaps a link, counts as changed). A
// missing input is part of the fingerprint too; directories themselves are
// not. Two equal fingerprints mean the inputs are, in all likelihood,
// unchanged; nothing is read.
func fingerprint(inputs []string) string {
	return serving.Fingerprint(false, inputs...)
}

// watch polls the inputs every interval until ctx is done and, when their
// fingerprint has changed from last (taken before the limits in force were
// loaded, so that a change while loading or before watch starts is not
// missed) and then stayed the same for one more interval
// (so that a file being written is not read half-way), loads them and swaps
// the service's limits. Invalid inputs keep the limits in force; the reason
// is logged once per change. An interval of 0 disables reloading.
func watch(ctx context.Context, src limitSource, last string, interval time.Duration, svc *rls.Service, m *serveMetrics, log *slog.Logger) {
	serving.Watcher{
		Interval: interval,
		Look:     func() string { return fingerprint(src.inputs()) },
		Settle:   true,
		Changed:  func() { reload(src, svc, m, log) },
	}.Run(ctx, last)
}

// reload loads the inputs and swaps them in, or keeps the limits in force.
func reload(src limitSource, svc *rls.Service, m *serveMetrics, log *slog.Logger) {
	limits, warnings, err := src.load()
	if err == nil {
		err = svc.SetLimits(limits)
	}
	if err != nil {
		m.reloadFailed()
		log.Error("reload failed; keeping the limits in force", "inputs", src.String(), "limits", svc.Limits(), "err", err.Error())
		return
	}
	m.loaded(len(limits))
	warnLimits(log, src, warnings)
	log.Info("limits reloaded", "inputs", src.String(), "limits", len(limits))
}
