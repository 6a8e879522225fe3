package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// TestControllerToystore runs the example over the toystore topology and checks what a
// controller would apply: statuses, a PluginConfig the filter accepts, and limits the
// service accepts.
func TestControllerToystore(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if code := run([]string{"-out", out, filepath.Join("..", "toystore")}, &stdout, &stderr, now); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := `status default/toystore: Accepted=True (Accepted)
status default/toystore: Enforced=True (PartiallyEnforced)
status gateway-system/mygateway: Accepted=True (Accepted)
status gateway-system/mygateway: Enforced=True (Enforced)
gateway gateway-system/mygateway: 1 rate-limit policies, 3 limits
`
	if got := stdout.String(); got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}

	dir := filepath.Join(out, "gateway-system_mygateway")
	data, err := os.ReadFile(filepath.Join(dir, "pluginconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := descriptor.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := descriptor.Compile(cfg); err != nil {
		t.Errorf("the written PluginConfig does not compile: %v", err)
	}
	data, err = os.ReadFile(filepath.Join(dir, "limits.json"))
	if err != nil {
		t.Fatal(err)
	}
	if limits, err := limitador.DecodeLimits(data); err != nil || len(limits) != 3 {
		t.Errorf("the written limits: %d, %v; want 3 valid limits", len(limits), err)
	}

	var status struct {
		Conditions []struct {
			Type, Status, Reason string
			LastTransitionTime   time.Time
		}
	}
	data, err = os.ReadFile(filepath.Join(out, "status", "default_toystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.Conditions) != 2 || !status.Conditions[0].LastTransitionTime.Equal(now) {
		t.Errorf("status = %+v, want two conditions at %v", status, now)
	}
}
