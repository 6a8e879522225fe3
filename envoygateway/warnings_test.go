package envoygateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/policy"
)

// TestWarnings checks the warnings of Invalid policies (at the field of their first error,
// with its line) and of a deprecated field (once per policy, on every ancestor).
func TestWarnings(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "compile", "whole-policy", "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte(`---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: depot-old, namespace: rail}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: depot}
  compression: [{type: Gzip}]
`)...)
	set, err := policy.Decode("input.yaml", data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	res, err := Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	type w struct {
		Line                   int
		Object, Field, Message string
	}
	var got []w
	for _, x := range Warnings(set, res) {
		got = append(got, w{x.Source.Line, x.Object, x.Field, x.Message})
	}
	want := []w{
		{62, "BackendTrafficPolicy rail/tickets-pages", "spec.responseOverride", "Invalid: ResponseOverride: can't find the referenced configmap rail/missing-page. (ancestor rail/depot)"},
		{75, "BackendTrafficPolicy rail/freight-slow", "spec.rateLimit", "Invalid: RateLimit: local configuration empty for rateLimit\nRetry: maxInterval cannot be less than baseInterval\nTimeout: invalid ConnectTimeout value 3 seconds\ninvalid RequestTimeout value 10 s. (ancestor rail/depot)"},
		{93, "BackendTrafficPolicy rail/signals-big", "spec.bandwidthLimit", "Invalid: BandwidthLimit: response: bandwidth limit of 30720 bytes per Minute is below the minimum of 1 KiB/s\nBackendConnection: BufferLimit value 5Gi is out of range\nHTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647\nRequestBuffer: limit value 6Gi is out of range, must be between 0 and 4294967295. (ancestor rail/depot)"},
		{117, "BackendTrafficPolicy rail/depot-old", "spec.compression", "DeprecatedField: spec.compression is deprecated, use spec.compressor instead; spec.targetRef is deprecated, use spec.targetRefs instead"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
}
