package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestNames: names and label values derived from Gateway names of every length Kubernetes
// allows stay valid, distinct and stable; short ones are today's.
func TestNames(t *testing.T) {
	if got := ConfigMapName("gw"); got != "rlpkit-gw" {
		t.Errorf(`ConfigMapName("gw") = %q, want "rlpkit-gw"`, got)
	}
	if got := PartName("gw", 3); got != "rlpkit-gw-part-3" {
		t.Errorf(`PartName("gw", 3) = %q, want "rlpkit-gw-part-3"`, got)
	}
	if got := GatewayLabel("gw"); got != "gw" {
		t.Errorf(`GatewayLabel("gw") = %q, want "gw"`, got)
	}
	long := func(n int, fill string) string { return strings.Repeat(fill, n)[:n] }
	seen := map[string]string{}
	for _, gw := range []string{
		long(63, "a"), long(64, "a"), long(65, "a"), long(246, "b"), long(247, "b"), long(253, "c"),
		long(253, "d."), long(253, "e-"), long(252, "e-") + "f", long(100, "a.b-c"), long(200, "a") + "-" + long(52, "x"),
	} {
		if errs := validation.IsDNS1123Subdomain(gw); len(errs) > 0 {
			t.Fatalf("test case %q is no Gateway name: %v", gw, errs)
		}
		for _, name := range []string{ConfigMapName(gw), PartName(gw, 1), PartName(gw, 120), ObjectName(gw, "-kuadrant")} {
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				t.Errorf("the name %q for Gateway %q is invalid: %v", name, gw, errs)
			}
			if other, ok := seen[name]; ok && other != gw {
				t.Errorf("Gateways %q and %q share the name %q", other, gw, name)
			}
			seen[name] = gw
		}
		label := GatewayLabel(gw)
		if errs := validation.IsValidLabelValue(label); len(errs) > 0 {
			t.Errorf("the label value %q for Gateway %q is invalid: %v", label, gw, errs)
		}
		if other, ok := seen["label "+label]; ok && other != gw {
			t.Errorf("Gateways %q and %q share the label value %q", other, gw, label)
		}
		seen["label "+label] = gw
		if ConfigMapName(gw) != ConfigMapName(strings.Clone(gw)) || GatewayLabel(gw) != GatewayLabel(strings.Clone(gw)) {
			t.Errorf("the names of Gateway %q change from one call to the next", gw)
		}
	}
	// Names that fit are not shortened.
	gw := long(246, "b")
	if got := ConfigMapName(gw); got != "rlpkit-"+gw {
		t.Errorf("ConfigMapName of a 246-character name = %q, want it whole", got)
	}
}
