package main

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	defaults := config{metricsAddr: ":8080", healthAddr: ":8081", upstreamCluster: "rate-limit-cluster", qps: 50, burst: 100}
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
				"--upstream-cluster=outbound|8081||rls", "--failure-mode-deny", "--kube-api-qps=5", "--kube-api-burst=7", "--development"},
			want: config{metricsAddr: "0", healthAddr: ":9000", leaderElect: true, leaderElectionNamespace: "rlpkit-system",
				upstreamCluster: "outbound|8081||rls", failureModeDeny: true, qps: 5, burst: 7, development: true},
		},
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
