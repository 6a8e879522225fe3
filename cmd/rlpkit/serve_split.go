package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
)

// isDir says whether path names a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// loadLimitsDir reads the limits of a directory holding a Gateway's output as
// rlpkit-controller writes it and Kubernetes mounts it: the ConfigMap rlpkit-<gateway>, or,
// for an output split into parts, a projected volume of that ConfigMap (the index) and of
// its parts' ConfigMaps. The limits are limits.yaml, or, with an index, its parts put
// together, each checked against the index's digest: a set whose parts do not all match its
// index (the kubelet has refreshed some of the ConfigMaps and not the others yet) is an
// error, so that a reload keeps the limits in force until the set is whole again.
func loadLimitsDir(dir string) ([]limitador.Limit, []string, error) {
	fsys := os.DirFS(dir)
	idx, err := bundle.ReadIndex(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	data, err := bundle.ReadFile(fsys, bundle.Limits)
	if err != nil {
		if idx == nil && errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("--limits %s: the directory holds neither %s nor %s: give the directory where a Gateway's ConfigMaps (rlpkit-controller's output) are mounted, or a limits file", dir, bundle.Limits, bundle.IndexFile)
		}
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	name := filepath.Join(dir, bundle.Limits)
	if idx != nil {
		var parts []string
		for _, p := range idx.Files[bundle.Limits] {
			parts = append(parts, p.File)
		}
		name += " (" + strings.Join(parts, " + ") + ")"
	}
	if fc, ok := identifyFile(data); ok && fc.Content != policy.ContentLimits && fc.Content != policy.ContentEmpty && fc.Content != policy.ContentOther {
		return nil, nil, fmt.Errorf("%s: this file holds %s; --limits DIR reads the limits of a Gateway's output", name, fc)
	}
	return decodeLimitsFile(name, data)
}
