package main

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestServeRedisClusterMasterDown: `rlpkit serve --redis` on a real 3+3
// Cluster, one master killed: only the calls for its slots fail, the
// others answer throughout and the server stays ready; its outage and its
// recovery (its replica promoted) are logged once each, and /metrics
// tells its health.
func TestServeRedisClusterMasterDown(t *testing.T) {
	c := redistest.StartCluster3(t)
	var doms []string
	var limits strings.Builder
	for i := range 3 {
		d := strings.Trim(redistest.TagOn(i, "ns"), "{}")
		doms = append(doms, d)
		limits.WriteString("- namespace: " + d + "\n  max_value: 1000\n  seconds: 3600\n  variables: [user]\n")
	}
	file := writeFile(t, t.TempDir(), "limits.yaml", limits.String())
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", c.URL(), "--log-format", "json")
	req := func(d string) error {
		_, err := s.call(t, rlsRequest(d, 0, rlsDesc("user", "alice")))
		return err
	}
	for _, d := range doms {
		if err := req(d); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	dead := c.Nodes[1]
	dead.Kill()
	waitFor(t, "the master's outage logged", func() bool {
		_ = req(doms[1])
		return strings.Contains(s.log.String(), `"msg":"redis master unreachable`)
	})
	for _, d := range []string{doms[0], doms[2]} {
		if err := req(d); err != nil {
			t.Errorf("%s, on a live master, with another master down: %v", d, err)
		}
	}
	if err := req(doms[1]); err == nil || !strings.Contains(err.Error(), dead.Addr) {
		t.Errorf("%s, on the dead master: %v, want an error naming %s", doms[1], err, dead.Addr)
	}
	if code, body := s.get(t, "/readyz"); code != 200 {
		t.Errorf("GET /readyz with one master of three down = %d %q, want 200", code, body)
	}
	_, body := s.get(t, "/metrics")
	if want := `rlpkit_store_node_reachable{node="` + dead.Addr + `"} 0`; !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepLines(body, "rlpkit_store"))
	}
	c.WaitPromoted(t, redistest.Slot("{"+doms[1]+"}"), dead)
	waitFor(t, "the dead master's slots answering", func() bool { return req(doms[1]) == nil })
	// The calls may find the new master before a probe tells the old one gone.
	waitFor(t, "the recovery logged", func() bool { return strings.Contains(s.log.String(), `"msg":"redis master reachable again`) })
	log := s.log.String()
	if down, up := strings.Count(log, `"msg":"redis master unreachable`), strings.Count(log, `"msg":"redis master reachable again`); down != 1 || up != 1 {
		t.Errorf("the log has %d outage and %d recovery lines for the master, want one each:\n%s", down, up, log)
	}
	if !strings.Contains(log, `"node":"`+dead.Addr+`"`) || strings.Contains(log, `"msg":"store unreachable`) {
		t.Errorf("the log should name the master %s and not the store down:\n%s", dead.Addr, log)
	}
}

// TestServeRedisDownLogsTheDialError: the first line about a Redis that
// refuses connections, and /readyz, give the refused dial, not the PING's
// deadline that go-redis's dial retries ran into.
func TestServeRedisDownLogsTheDialError(t *testing.T) {
	r := redistest.Start(t)
	r.Kill()
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--log-format", "json")
	waitFor(t, "the outage logged", func() bool { return strings.Contains(s.log.String(), `"err":`) })
	var first string
	for _, l := range strings.Split(s.log.String(), "\n") {
		if strings.Contains(l, `"err":`) {
			first = l
			break
		}
	}
	if !strings.Contains(first, "connection refused") || strings.Contains(first, "deadline exceeded") {
		t.Errorf("first line with an error %q, want the refused dial and no deadline", first)
	}
	if code, body := s.get(t, "/readyz"); code == 200 || !strings.Contains(body, "connection refused") || strings.Contains(body, "deadline exceeded") {
		t.Errorf("GET /readyz with Redis refusing = %d %q, want a failure naming the refused dial", code, body)
	}
}
