package main

import (
	"io"
	"strings"
	"testing"
)

// TestServeRatelimitConfigLogsWhatItServes: the "serving" line of --ratelimit-config names
// the directory and counts its rules (it logged limits=0 and an empty topology).
func TestServeRatelimitConfigLogsWhatItServes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1}\n  - key: w\n    rate_limit: {unit: minute, requests_per_unit: 5}\n")
	s := startServe(t, "--ratelimit-config", dir, "--addr", "127.0.0.1:0")
	s.mustCall(t, rlsRequest("d", 0, rlsDesc("k", "a")))
	var line string
	for _, l := range strings.Split(s.log.String(), "\n") {
		if strings.Contains(l, "msg=serving") {
			line = l
		}
	}
	if !strings.Contains(line, "limits=2") || !strings.Contains(line, `inputs="ratelimit config `+dir+`"`) {
		t.Errorf("serving line %q: want limits=2 and inputs=\"ratelimit config %s\"", line, dir)
	}
}

// TestServeHTTPAddrDefault: both ports bind loopback by default, and -h says so.
func TestServeHTTPAddrDefault(t *testing.T) {
	o, err := parseServe([]string{"--limits", "l.yaml"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.addr != "127.0.0.1:8081" || o.httpAddr != "127.0.0.1:8080" {
		t.Errorf("defaults --addr %q --http-addr %q, want both on loopback (127.0.0.1:8081, 127.0.0.1:8080)", o.addr, o.httpAddr)
	}
	if !strings.Contains(serveSynopsis, "Both ports bind loopback by default") {
		t.Errorf("serve -h does not state the rule for both ports")
	}
}
