package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// clusterDomains writes, under root, a configuration for one domain on
// each master of a 3+3 Cluster (the keys are tagged by domain) and returns
// the domains, in the order of the masters.
func clusterDomains(t *testing.T, root string) []string {
	t.Helper()
	var doms []string
	for i := range 3 {
		tag := redistest.TagOn(i, "dom")
		d := strings.Trim(tag, "{}")
		doms = append(doms, d)
		writeFile(t, filepath.Join(root, "ratelimit/config", d+".yaml"),
			"domain: "+d+"\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1000}\n")
	}
	return doms
}

// TestRedisClusterMasterDown: with REDIS_TYPE=cluster on a real 3+3
// Cluster, one master killed fails only the calls for its slots; the
// others answer throughout. Its outage and its recovery (its replica
// promoted) are logged once each, and /metrics tells its health.
func TestRedisClusterMasterDown(t *testing.T) {
	c := redistest.StartCluster3(t)
	root := t.TempDir()
	doms := clusterDomains(t, root)
	env := baseEnv(root)
	env["BACKEND_TYPE"] = "redis"
	env["REDIS_SOCKET_TYPE"] = "tcp"
	env["REDIS_TYPE"] = "cluster"
	env["REDIS_URL"] = strings.Join(c.Addrs(), ",")
	env["REDIS_TIMEOUT"] = "1s"
	env["LOG_FORMAT"] = "json"
	env["USE_PROMETHEUS"] = "true"
	env["PROMETHEUS_ADDR"] = "127.0.0.1:0"
	s := start(t, env)
	for _, d := range doms {
		if _, err := s.call(t, d, "k=a"); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	dead := c.Nodes[1]
	dead.Kill()
	eventually(t, "the master's outage logged", func() bool {
		_, _ = s.call(t, doms[1], "k=a")
		return strings.Contains(s.log.String(), `"@message":"redis master unreachable`)
	})
	for _, d := range []string{doms[0], doms[2]} {
		if _, err := s.call(t, d, "k=a"); err != nil {
			t.Errorf("%s, on a live master, with another master down: %v", d, err)
		}
	}
	if _, err := s.call(t, doms[1], "k=a"); err == nil || !strings.Contains(err.Error(), dead.Addr) {
		t.Errorf("%s, on the dead master: %v, want an error naming %s", doms[1], err, dead.Addr)
	}
	_, body := get(t, "http://"+s.addrs.debug+"/metrics")
	if want := `ratelimit_redis_node_reachable{node="` + dead.Addr + `",store="redis"} 0`; !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepMetric(body, "ratelimit_redis_node"))
	}
	c.WaitPromoted(t, redistest.Slot("{"+doms[1]+"}"), dead)
	eventually(t, "the dead master's slots answering", func() bool {
		_, err := s.call(t, doms[1], "k=a")
		return err == nil
	})
	// The calls may find the new master before a probe tells the old one gone.
	eventually(t, "the recovery logged", func() bool {
		return strings.Contains(s.log.String(), `"@message":"redis master reachable again`)
	})
	log := s.log.String()
	if down, up := strings.Count(log, `"@message":"redis master unreachable`), strings.Count(log, `"@message":"redis master reachable again`); down != 1 || up != 1 {
		t.Errorf("the log has %d outage and %d recovery lines for the master, want one each:\n%s", down, up, log)
	}
	if !strings.Contains(log, `"node":"`+dead.Addr+`"`) {
		t.Errorf("the log does not name the master %s:\n%s", dead.Addr, log)
	}
	if strings.Contains(log, `"@message":"store unreachable`) {
		t.Errorf("the store as a whole was logged down with two masters of three up:\n%s", log)
	}
}

// grepMetric returns the lines of body that start with prefix.
func grepMetric(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
