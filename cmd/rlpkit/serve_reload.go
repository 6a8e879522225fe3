package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/rls"
)

// fingerprint describes the files serve reads of the inputs as the file system reports
// them: an input file as given, and under an input directory every *.yaml, *.yml and *.json
// (what policy.Read reads), with its path, size, modification time and mode, symbolic links
// followed to what they name (so that a Kubernetes ConfigMap volume, which swaps a link,
// counts as changed). Other files (a log written beside the inputs) do not count. A missing
// input is part of the fingerprint too. Two equal fingerprints mean the inputs are, in all
// likelihood, unchanged; nothing is read.
func fingerprint(inputs []string) string {
	return serving.Fingerprint(false, readFiles(inputs)...)
}

// readFiles returns the files serve reads of inputs: an input that is not a directory (a
// missing one included, so that its absence counts), and the *.yaml, *.yml and *.json files
// under a directory, in lexical order.
func readFiles(inputs []string) []string {
	var out []string
	for _, in := range inputs {
		if fi, err := os.Stat(in); err != nil || !fi.IsDir() {
			out = append(out, in)
			continue
		}
		filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				out = append(out, path) // described by its error
				return nil
			}
			if !d.IsDir() && policy.IsManifest(path) {
				out = append(out, path)
			}
			return nil
		})
	}
	return out
}

// contentDigest is a digest of the paths and contents of the files serve reads of inputs;
// a file that cannot be read counts by its error.
func contentDigest(inputs []string) string {
	h := sha256.New()
	for _, f := range readFiles(inputs) {
		data, err := inputlimit.ReadFile(f)
		if err != nil {
			data = []byte(err.Error())
		}
		fmt.Fprintf(h, "%q %d\n", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// onContentChange returns a function that calls f when the content of the files serve reads
// of inputs differs from what it was at the previous call that called f: a file touched or
// rewritten with the same bytes reloads nothing. The first call always calls f.
func onContentChange(inputs func() []string, f func()) func() {
	last, first := "", true
	return func() {
		d := contentDigest(inputs())
		if !first && d == last {
			return
		}
		first, last = false, d
		f()
	}
}

// watch polls the inputs every interval until ctx is done and, when their
// fingerprint has changed from last (taken before the limits in force were
// loaded, so that a change while loading or before watch starts is not
// missed) and then stayed the same for one more interval
// (so that a file being written is not read half-way), loads them and swaps
// the service's limits if their content changed. Invalid inputs keep the limits
// in force; the reason is logged once per change. An interval of 0 disables reloading.
func watch(ctx context.Context, src limitSource, last string, interval time.Duration, svc *rls.Service, m *serveMetrics, log *slog.Logger) {
	serving.Watcher{
		Interval: interval,
		Look:     func() string { return fingerprint(src.inputs()) },
		Settle:   true,
		Changed:  onContentChange(src.inputs, func() { reload(src, svc, m, log) }),
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
