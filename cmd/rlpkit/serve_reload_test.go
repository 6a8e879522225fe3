package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

const reloadLimits = `- namespace: shop
  max_value: %s
  seconds: 31536000
  variables: [user]
`

// currentMax asks, without consuming, which maximum applies to user alice.
func currentMax(t *testing.T, s *testServer) uint32 {
	t.Helper()
	resp := s.mustCall(t, rlsRequest("shop", 0, rlsHits(rlsDesc("user", "alice"), 0)))
	return resp.GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit()
}

// TestServeReload changes the limits file under a running server: valid
// changes apply, counters carry over, invalid ones keep the limits in force.
func TestServeReload(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "limits.yaml", strings.Replace(reloadLimits, "%s", "1", 1))
	s := startServe(t, "--addr", "127.0.0.1:0", "--reload-interval", "5ms", "--limits", file)
	alice := rlsRequest("shop", 0, rlsDesc("user", "alice"))
	if got := s.mustCall(t, alice).GetOverallCode(); got != rlsv3.RateLimitResponse_OK {
		t.Fatalf("first request: %v, want OK", got)
	}
	if got := s.mustCall(t, alice).GetOverallCode(); got != rlsv3.RateLimitResponse_OVER_LIMIT {
		t.Fatalf("second request at max 1: %v, want OVER_LIMIT", got)
	}

	// A valid change applies; the counter (same identity) keeps its hit.
	replaceFile(t, dir, "limits.yaml", strings.Replace(reloadLimits, "%s", "20", 1))
	waitFor(t, "max 20 to apply", func() bool { return currentMax(t, s) == 20 })
	resp := s.mustCall(t, alice)
	if got, want := summary(t, resp), []string{"OK", `OK "" 20/YEAR remaining 18`}; !equal(got, want) {
		t.Errorf("after reload: %v, want %v", got, want)
	}

	// An invalid change keeps the limits in force and says why.
	replaceFile(t, dir, "limits.yaml", strings.Replace(reloadLimits, "%s", "-3", 1))
	waitFor(t, "the failed reload to be logged with the problem's line and field", func() bool {
		return strings.Contains(s.log.String(), "limits.yaml:2: limit: [0].max_value")
	})
	if got := currentMax(t, s); got != 20 {
		t.Errorf("after an invalid file: max %d, want 20 still", got)
	}

	// A missing file too.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the missing file to be logged", func() bool { return strings.Contains(s.log.String(), "no such file") })
	if got := currentMax(t, s); got != 20 {
		t.Errorf("after removing the file: max %d, want 20 still", got)
	}

	// Fixing it applies again.
	replaceFile(t, dir, "limits.yaml", strings.Replace(reloadLimits, "%s", "300", 1))
	waitFor(t, "max 300 to apply", func() bool { return currentMax(t, s) == 300 })
	metrics := scrape(t, s)
	for _, want := range []string{`rlpkit_limits_reloads_total{result="success"} 3`, `rlpkit_limits_reloads_total{result="failure"} 2`, "rlpkit_limits_last_reload_success 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(metrics, "rlpkit_limits"))
		}
	}
}

// TestServeReloadTopology edits a topology directory under a running server.
func TestServeReloadTopology(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gateway.yaml", "httproute.yaml", "policies.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "toystore", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, string(data))
	}
	s := startServe(t, "--addr", "127.0.0.1:0", "--reload-interval", "5ms", dir)
	const domain = "gateway-system/mygateway#default/toystore"
	limitOf := func() uint32 {
		resp := s.mustCall(t, rlsRequest(domain, 0, rlsHits(rlsDesc("my-key", "my-value"), 0)))
		return resp.GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit()
	}
	if got := limitOf(); got != 50 {
		t.Fatalf("toystore limit %d, want 50", got)
	}
	policies, err := os.ReadFile(filepath.Join(dir, "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(policies), "max_value: 50") {
		t.Fatal("the toystore policies no longer have max_value: 50; update this test")
	}
	replaceFile(t, dir, "policies.yaml", strings.Replace(string(policies), "max_value: 50", "max_value: 7", 1))
	waitFor(t, "max 7 to apply", func() bool { return limitOf() == 7 })

	replaceFile(t, dir, "broken.yaml", "kind: [\n")
	waitFor(t, "the failed reload to be logged", func() bool { return strings.Contains(s.log.String(), "reload failed") })
	if got := limitOf(); got != 7 {
		t.Errorf("after a broken file: limit %d, want 7 still", got)
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
