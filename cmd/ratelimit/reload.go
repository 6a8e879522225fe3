package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// pollInterval is how often the runtime directory is looked at.
const pollInterval = 250 * time.Millisecond

// loader loads the configuration and reloads it when the reference would:
// with RUNTIME_WATCH_ROOT=true when the RUNTIME_ROOT symbolic link is
// replaced, otherwise when a file of the application directory is written,
// created, removed or has its mode changed. It polls rather than subscribing
// to file events, so it works alike on every file system (a change is seen
// within pollInterval).
type loader struct {
	s     settings
	log   *slog.Logger
	stats *stats
	apply func(*envoyratelimit.Config)
	dump  func(*envoyratelimit.Config) // keeps /rlconfig's text

	mark   string // what the look before the first load saw
	loaded bool   // a configuration has been applied
}

func (l *loader) dirOptions() envoyratelimit.DirOptions {
	return envoyratelimit.DirOptions{Root: l.s.runtimeRoot, Subdirectory: l.s.runtimeSubdirectory, AppDirectory: l.s.runtimeAppDirectory,
		WatchRoot: l.s.runtimeWatchRoot, IgnoreDotFiles: l.s.runtimeIgnoreDotFiles}
}

// load reads and applies the configuration once. A failure keeps the
// configuration in force, counts config_load_error and is logged, saying
// whether a configuration is in force at all.
func (l *loader) load() error {
	files, err := envoyratelimit.ReadDir(l.dirOptions())
	var cfg *envoyratelimit.Config
	if err == nil {
		cfg, err = envoyratelimit.Load(files, envoyratelimit.LoadOptions{MergeDomains: l.s.mergeDomainConfig, Keys: l.s.refKeys.format})
	}
	if err != nil {
		l.stats.configLoadError.Add(1)
		msg := "error loading new configuration from runtime: the configuration in force is kept"
		if !l.loaded {
			msg = "no rate limit configuration is loaded: every call fails until a valid one loads; " + l.reloadRule()
		}
		l.log.Error(msg, "dir", l.dirOptions().Dir(), "err", strings.ReplaceAll(err.Error(), "\n", "; "))
		return err
	}
	l.stats.configLoadSuccess.Add(1)
	l.loaded = true
	l.apply(cfg)
	l.log.Info("loaded configuration", "files", len(files), "domains", len(cfg.Domains()))
	return nil
}

// reloadRule says when the configuration is read again.
func (l *loader) reloadRule() string {
	if l.s.runtimeWatchRoot {
		return "it is read again when RUNTIME_ROOT " + l.s.runtimeRoot + " is created or replaced (RUNTIME_WATCH_ROOT=true)"
	}
	return "it is read again when a file of the directory changes"
}

// start looks at the directory, then loads it: a change made while (or
// after) it is read is seen by the next look of watch.
func (l *loader) start() error {
	l.mark = l.look()
	return l.load()
}

// watch polls until ctx is done and reloads on a change since start or the
// last reload: at the first look that sees it, without waiting for it to
// settle.
func (l *loader) watch(ctx context.Context) {
	serving.Watcher{Interval: pollInterval, Look: l.look, Changed: func() { l.load() }}.Run(ctx, l.mark)
}

// look returns what the reload rule compares: the RUNTIME_ROOT link (its
// target and identity) in watch-root mode, else every file's and
// directory's name, size, mode and modification time in the application
// directory.
func (l *loader) look() string {
	if l.s.runtimeWatchRoot {
		fi, err := os.Lstat(l.s.runtimeRoot)
		if err != nil {
			return "missing"
		}
		target, _ := os.Readlink(l.s.runtimeRoot)
		return fmt.Sprintf("%s %v %v", target, fi.ModTime().UnixNano(), inode(fi))
	}
	return serving.Fingerprint(true, l.dirOptions().Dir())
}
