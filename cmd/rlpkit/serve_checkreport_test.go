package main

import (
	"context"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/rls"
)

// tokenLimitsYAML is a TokenRateLimitPolicy's limit as kuadrant-operator
// compiles it: 100 tokens a minute per user.
const tokenLimitsYAML = `- namespace: ns/route
  name: tokens
  max_value: 100
  seconds: 60
  conditions: ['descriptors[0]["tokenlimit.tokens__13adad8e"] == "1"']
  variables: ['descriptors[0]["user"]']
`

// kuadrantCall calls method of kuadrant.service.ratelimit.v1.RateLimitService
// on s and returns the overall code.
func kuadrantCall(t *testing.T, s *testServer, method string, hits uint32, extra ...string) rlsv3.RateLimitResponse_Code {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv := append([]string{"tokenlimit.tokens__13adad8e", "1", "user", "alice"}, extra...)
	out := new(rlsv3.RateLimitResponse)
	if err := s.conn.Invoke(ctx, "/"+rls.KuadrantServiceName+"/"+method, rlsRequest("ns/route", hits, rlsDesc(kv...)), out); err != nil {
		t.Fatalf("%s: %v\nserver log:\n%s", method, err, s.log)
	}
	return out.OverallCode
}

// TestServeCheckReport runs CheckRateLimit and Report against "rlpkit
// serve" in both modes, memory and Redis, and reads their metrics.
func TestServeCheckReport(t *testing.T) {
	const ok, over = rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT
	type step struct {
		method string
		hits   uint32
		extra  []string
		want   rlsv3.RateLimitResponse_Code
	}
	modes := []struct {
		args  []string
		steps []step
	}{
		{nil, []step{ // Limitador: the check charges nothing, the report charges past the max
			{"CheckRateLimit", 500, nil, ok},
			{"Report", 99, nil, ok},
			{"CheckRateLimit", 0, nil, ok},
			{"Report", 5, nil, ok},
			{"CheckRateLimit", 0, nil, over},
		}},
		{[]string{"--check-report", "reserve", "--reserve-default", "40", "--reserve-max-in-flight", "0"}, []step{
			{"CheckRateLimit", 70, nil, ok},                       // reserves 70
			{"CheckRateLimit", 0, nil, over},                      // 40 more does not fit
			{"Report", 10, []string{rls.ReservedEntry, "70"}, ok}, // 10
			{"CheckRateLimit", 0, nil, ok},                        // 50
			{"CheckRateLimit", 50, nil, ok},                       // 100
			{"CheckRateLimit", 1, nil, over},
		}},
	}
	for name, store := range map[string]func(t *testing.T) []string{
		"memory": func(*testing.T) []string { return nil },
		"redis":  func(t *testing.T) []string { return []string{"--redis", redistest.Start(t).URL()} },
	} {
		t.Run(name, func(t *testing.T) {
			for _, m := range modes {
				dir := t.TempDir()
				args := append(append(store(t), m.args...), "--addr", "127.0.0.1:0", "--limits", writeFile(t, dir, "limits.yaml", tokenLimitsYAML))
				s := startServe(t, args...)
				for i, st := range m.steps {
					if got := kuadrantCall(t, s, st.method, st.hits, st.extra...); got != st.want {
						t.Fatalf("%v step %d: %s(hits %d) = %v, want %v", m.args, i, st.method, st.hits, got, st.want)
					}
				}
				if services := reflectedServices(t, s); !strings.Contains(services, rls.KuadrantServiceName) {
					t.Errorf("reflection lists %s, want %s", services, rls.KuadrantServiceName)
				}
				metrics := scrape(t, s)
				for _, want := range []string{
					`rlpkit_check_report_calls_total{code="OVER_LIMIT",domain="ns/route",method="CheckRateLimit"}`,
					`rlpkit_check_report_calls_total{code="OK",domain="ns/route",method="Report"}`,
					`rlpkit_limit_reported_hits_total{domain="ns/route",limit="tokens"}`,
				} {
					if !strings.Contains(metrics, want+" ") {
						t.Errorf("metrics lack %s; got:\n%s", want, grepLines(metrics, "check_report|reported"))
					}
				}
			}
		})
	}
}

// TestServeCheckReportFlags checks the flags' errors.
func TestServeCheckReportFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check-report", "optimistic"}, `unknown check and report mode "optimistic"`},
		{[]string{"--reserve-default", "-1"}, "want a whole number"},
		{[]string{"--reserve-max-in-flight", "-1s"}, "want 0 or more"},
	} {
		_, err := parseServe(append(tc.args, "--limits", "x.yaml"), noEnv, new(strings.Builder))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseServe(%v) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestServeCheckReportEnv checks the flags' variables and defaults.
func TestServeCheckReportEnv(t *testing.T) {
	o, err := parseServe([]string{"--limits", "x.yaml"}, noEnv, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	if want := (rls.CheckReport{MaxInFlight: 15 * time.Second}); o.checkReport != want {
		t.Errorf("defaults: %+v, want %+v", o.checkReport, want)
	}
	env := map[string]string{"RLPKIT_CHECK_REPORT": "reserve", "RLPKIT_RESERVE_DEFAULT": "256", "RLPKIT_RESERVE_MAX_IN_FLIGHT": "2m"}
	o, err = parseServe([]string{"--limits", "x.yaml"}, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	if want := (rls.CheckReport{Mode: rls.ModeReserve, DefaultEstimate: 256, MaxInFlight: 2 * time.Minute}); o.checkReport != want {
		t.Errorf("from the environment: %+v, want %+v", o.checkReport, want)
	}
}
