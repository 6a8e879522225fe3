package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/kuadrant"
)

func TestParse(t *testing.T) {
	kuadrantDefaults := kuadrant.Options{RateLimitEndpoint: "kuadrant-ratelimit-service", RateLimitFailureMode: "allow", RateLimitTimeout: "100ms",
		AuthEndpoint: "kuadrant-auth-service", AuthFailureMode: "deny", AuthTimeout: "200ms"}
	dpDefaults := controller.DataPlaneOptions{WasmShimURL: controller.DefaultWasmShimURL}
	defaults := config{metricsAddr: ":8080", healthAddr: ":8081", upstreamCluster: "rate-limit-cluster", qps: 200, burst: 400, kuadrant: kuadrantDefaults, statusWorkers: 16, dataPlane: dpDefaults, http: serving.DefaultHTTP}
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr string
	}{
		{name: "defaults", want: defaults},
		{
			name: "every flag",
			args: []string{"--metrics-addr=0", "--health-addr=:9000", "--leader-elect", "--leader-election-namespace=rlpkit-system",
				"--upstream-cluster=outbound|8081||rls", "--failure-mode-deny", "--kube-api-qps=5", "--kube-api-burst=7", "--development",
				"--apis=kuadrant.io/v1, apim.kuadrant.io/v1alpha1,kuadrant.io/v1", "--kuadrant-ratelimit-endpoint=outbound|8081||rls",
				"--kuadrant-ratelimit-failure-mode=deny", "--kuadrant-ratelimit-timeout=250ms", "--status-workers=3",
				"--kuadrant-auth-endpoint=outbound|50051||authorino", "--kuadrant-auth-failure-mode=allow", "--kuadrant-auth-timeout=1s",
				"--data-plane=istio,envoy-gateway,istio", "--filter-url=oci://registry.example.com/rlpkit-filter:v1",
				"--wasm-shim-url=oci://quay.io/kuadrant/wasm-shim:v0.14.0", "--ratelimit-address=rlpkit.rlpkit-system.svc:8081"},
			want: config{metricsAddr: "0", healthAddr: ":9000", leaderElect: true, leaderElectionNamespace: "rlpkit-system",
				upstreamCluster: "outbound|8081||rls", failureModeDeny: true, qps: 5, burst: 7, development: true,
				apis: []controller.API{controller.APIV1, controller.APIV1alpha1},
				kuadrant: kuadrant.Options{RateLimitEndpoint: "outbound|8081||rls", RateLimitFailureMode: "deny", RateLimitTimeout: "250ms",
					AuthEndpoint: "outbound|50051||authorino", AuthFailureMode: "allow", AuthTimeout: "1s"},
				statusWorkers: 3,
				dataPlane: controller.DataPlaneOptions{DataPlanes: []controller.DataPlane{controller.DataPlaneIstio, controller.DataPlaneEnvoyGateway},
					FilterURL: "oci://registry.example.com/rlpkit-filter:v1", WasmShimURL: "oci://quay.io/kuadrant/wasm-shim:v0.14.0", RateLimitAddress: "rlpkit.rlpkit-system.svc:8081"},
				http: serving.DefaultHTTP},
		},
		{name: "HTTP bounds", args: []string{"--http-read-header-timeout=2s", "--http-read-timeout=0", "--http-write-timeout=1m", "--http-idle-timeout=5s", "--http-max-connections=8"},
			want: func() config {
				c := defaults
				c.http = serving.HTTPBounds{ReadHeader: 2 * time.Second, Write: time.Minute, Idle: 5 * time.Second, MaxConns: 8}
				return c
			}()},
		{name: "no header timeout", args: []string{"--http-read-header-timeout=0"}, wantErr: "--http-read-header-timeout 0s: want more than 0"},
		{name: "one API", args: []string{"--apis=apim.kuadrant.io/v1alpha1"}, want: func() config {
			c := defaults
			c.apis = []controller.API{controller.APIV1alpha1}
			return c
		}()},
		{name: "unknown API", args: []string{"--apis=kuadrant.io/v1beta2"}, wantErr: `--apis: unknown policy API "kuadrant.io/v1beta2": want some of apim.kuadrant.io/v1alpha1, kuadrant.io/v1, kuadrant.io/v1alpha1, comma-separated`},
		{name: "bad failure mode", args: []string{"--kuadrant-ratelimit-failure-mode=open"}, wantErr: `--kuadrant-ratelimit-failure-mode "open": want deny or allow`},
		{name: "bad timeout", args: []string{"--kuadrant-ratelimit-timeout=0s"}, wantErr: `--kuadrant-ratelimit-timeout "0s": want a positive duration such as 100ms`},
		{name: "bad auth failure mode", args: []string{"--kuadrant-auth-failure-mode=open"}, wantErr: `--kuadrant-auth-failure-mode "open": want deny or allow`},
		{name: "bad auth timeout", args: []string{"--kuadrant-auth-timeout=soon"}, wantErr: `--kuadrant-auth-timeout "soon": want a positive duration such as 200ms`},
		{name: "auto", args: []string{"--data-plane=auto"}, want: func() config {
			c := defaults
			c.dataPlane.DataPlanes = controller.AllDataPlanes
			return c
		}()},
		{name: "unknown data plane", args: []string{"--data-plane=linkerd"}, wantErr: `--data-plane: unknown data plane "linkerd": want istio, envoy-gateway, both comma-separated, or auto`},
		{name: "filter without data plane", args: []string{"--filter-url=oci://x"}, wantErr: "--filter-url and --ratelimit-address need --data-plane"},
		{name: "bad address", args: []string{"--data-plane=istio", "--ratelimit-address=rlpkit"}, wantErr: `--ratelimit-address "rlpkit": want host:port`},
		{name: "no workers", args: []string{"--status-workers=0"}, wantErr: "--status-workers 0: want 1 or more"},
		{name: "argument", args: []string{"serve"}, want: defaults, wantErr: `unexpected argument "serve": rlpkit-controller takes only flags`},
		{name: "unknown flag", args: []string{"--limits=x"}, wantErr: "flag provided but not defined: -limits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("parse(%q) error = %v, want %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q) error = %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(config{})); diff != "" {
				t.Errorf("parse(%q) (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	if code := run(context.Background(), []string{"stray"}); code != 2 {
		t.Errorf("run(stray) = %d, want 2", code)
	}
}
