package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeNotices: serve PATH... logs every skipped file, as compile and
// validate print them, once: a reload logs only files newly skipped.
func TestServeNotices(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gateway.yaml", "httproute.yaml", "policies.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "toystore", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, string(data))
	}
	writeFile(t, dir, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: toystore}\n")
	writeFile(t, dir, "istio.yaml", "apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: ingress}\n")
	s := startServe(t, "--addr", "127.0.0.1:0", "--reload-interval", "5ms", dir)

	deploy := `msg="input skipped" file=` + filepath.Join(dir, "deploy.yaml") + ` skipped="apps/v1 Deployment"`
	istio := `msg="input skipped" file=` + filepath.Join(dir, "istio.yaml") + ` skipped="networking.istio.io/v1 Gateway"`
	values := `msg="input skipped" file=` + filepath.Join(dir, "values.yaml") + ` skipped="not a Kubernetes object"`
	for _, want := range []string{deploy, istio} {
		if n := strings.Count(s.log.String(), want); n != 1 {
			t.Errorf("log has %q %d times, want once:\n%s", want, n, s.log)
		}
	}

	// A new file that is skipped is logged when the inputs reload; the others are not
	// logged again. The file is written as soon as serve is ready: a change made before the
	// watcher's first look is still a change.
	writeFile(t, dir, "values.yaml", "replicaCount: 2\n")
	waitFor(t, "the new file's notice", func() bool { return strings.Contains(s.log.String(), values) })
	waitFor(t, "the reload", func() bool { return strings.Contains(s.log.String(), "limits reloaded") })
	for _, want := range []string{deploy, istio, values} {
		if n := strings.Count(s.log.String(), want); n != 1 {
			t.Errorf("after a reload, log has %q %d times, want once:\n%s", want, n, s.log)
		}
	}
}
