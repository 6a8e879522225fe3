package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlpkit/rlpkit/internal/golden"
)

// TestInvalidGolden pins the exact error output for broken inputs: testdata/invalid/<case>.yaml
// against <case>.want. Run with -update to rewrite the want files.
func TestInvalidGolden(t *testing.T) {
	for _, file := range golden.Glob(t, filepath.Join("testdata", "invalid", "*.yaml")) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, err := Read([]string{file}, nil)
			if err == nil {
				t.Fatalf("Read(%s) = nil error, want problems", file)
			}
			got := err.Error() + "\n"
			wantFile := strings.TrimSuffix(file, ".yaml") + ".want"
			golden.Check(t, wantFile, []byte(got))
		})
	}
}

// TestProposalExamples decodes the two RateLimitPolicy examples of the Kuadrant proposal
// "RateLimitPolicy targeting a Gateway resource": valid, and lossless through an
// encode/decode round trip.
func TestProposalExamples(t *testing.T) {
	file := filepath.Join("testdata", "valid", "proposal-examples.yaml")
	set, err := Read([]string{file}, nil)
	if err != nil {
		t.Fatalf("Read(%s): %v", file, err)
	}
	if len(set.Policies) != 2 {
		t.Fatalf("Read(%s) = %d policies, want 2", file, len(set.Policies))
	}
	p := set.Policies[0]
	if p.Spec.TargetRef.Kind != "HTTPRoute" || p.Spec.Default == nil || len(p.Spec.Default.GatewayActions[0].Rules) != 2 ||
		p.Spec.Default.RateLimits[0].Conditions[0] != "my-key == my-value" || p.Namespace != "default" {
		t.Errorf("first policy decoded as %+v", p)
	}
	for _, p := range set.Policies {
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode("again.json", data)
		if err != nil {
			t.Fatalf("Decode(Marshal(%s)): %v\n%s", p.Name, err, data)
		}
		if diff := cmp.Diff(p, again.Policies[0], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip of %s (-first +second):\n%s", p.Name, diff)
		}
	}
}

func TestReadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b/ns.yml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b, labels: {team: b}}\n")
	write("a/gw.json", `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw"},"spec":{"gatewayClassName":"c","listeners":[{"name":"l","port":80,"protocol":"HTTP"}]}}`)
	write("a/notes.txt", "not a manifest")
	stdin := strings.NewReader("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-c}\n")

	set, err := Read([]string{dir, "-"}, stdin)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(set.Gateways) != 1 || len(set.Namespaces) != 2 || set.Gateways[0].Namespace != DefaultNamespace {
		t.Fatalf("Read = %d gateways (namespace %q), %d namespaces; want 1 in %q, 2",
			len(set.Gateways), set.Gateways[0].Namespace, len(set.Namespaces), DefaultNamespace)
	}
	src, ok := set.Source(ObjectKey{Kind: KindNamespace, Name: "team-c"})
	if !ok || src.String() != "-:1" {
		t.Errorf("Source(Namespace team-c) = %v, %v, want -:1", src, ok)
	}

	// The same object twice across inputs is a problem naming both places.
	_, err = Read([]string{dir, filepath.Join(dir, "a", "gw.json")}, nil)
	want := filepath.Join(dir, "a", "gw.json") + ":1: Gateway default/gw: metadata.name: Duplicate value: Gateway default/gw is also defined at " + filepath.Join(dir, "a", "gw.json") + ":1"
	if err == nil || err.Error() != want {
		t.Errorf("Read(duplicate) = %v, want %s", err, want)
	}

	// Stdin is "-"; without one, that is a problem too.
	if _, err := Read([]string{"-"}, nil); err == nil || err.Error() != "-: no standard input to read" {
		t.Errorf("Read(-, nil stdin) = %v, want -: no standard input to read", err)
	}

	// A missing path is a problem, and the other inputs are still read.
	set, err = Read([]string{filepath.Join(dir, "missing"), filepath.Join(dir, "b")}, nil)
	if err == nil || !strings.Contains(err.Error(), "missing: stat: no such file or directory") || len(set.Namespaces) != 1 {
		t.Errorf("Read(missing, b) = %d namespaces, %v; want 1 and a stat error", len(set.Namespaces), err)
	}
}

func TestInvalidObjectsAreKept(t *testing.T) {
	set, err := Decode("p.yaml", []byte(rlpHead+"spec: {targetRef: {group: x, kind: Gateway, name: gw}}\n"))
	if err == nil || len(set.Policies) != 1 {
		t.Fatalf("Decode = %d policies, %v; want the invalid policy kept and an error", len(set.Policies), err)
	}
	if probs := set.Problems(PolicyKey(set.Policies[0])); len(probs) != 1 || probs[0].Field != "spec.targetRef.group" {
		t.Errorf("Problems = %v, want one on spec.targetRef.group", probs)
	}
}

func TestDeepCopy(t *testing.T) {
	set, err := Read([]string{filepath.Join("testdata", "valid", "proposal-examples.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	orig := set.Policies[0]
	cp := orig.DeepCopy()
	if diff := cmp.Diff(orig, cp); diff != "" {
		t.Fatalf("DeepCopy differs (-orig +copy):\n%s", diff)
	}
	cp.Spec.Default.GatewayActions[0].Rules[0].Paths[0] = "/changed"
	cp.Spec.Default.GatewayActions[0].Configurations[0].Actions[0].GenericKey.DescriptorValue = "changed"
	cp.Spec.Default.RateLimits[0].Conditions[0] = "changed"
	if orig.Spec.Default.GatewayActions[0].Rules[0].Paths[0] != "/admin" ||
		orig.Spec.Default.GatewayActions[0].Configurations[0].Actions[0].GenericKey.DescriptorValue != "my-value" ||
		orig.Spec.Default.RateLimits[0].Conditions[0] != "my-key == my-value" {
		t.Errorf("changing the copy changed the original: %+v", orig.Spec.Default)
	}
	if _, ok := orig.DeepCopyObject().(*RateLimitPolicy); !ok {
		t.Errorf("DeepCopyObject is not a *RateLimitPolicy")
	}
}
