package controller

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// exampleObjects reads the objects of a file of examples/kubernetes, by "Kind/name".
func exampleObjects(t *testing.T, file string) map[string]*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(u.Object) > 0 {
			out[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	return out
}

// TestExampleDeployments checks that the examples fit together with what the controller
// writes: rlpkit serve mounts the ConfigMap ConfigMapName names for mygateway, whole, and its
// parts (PartName), optional, and reads the directory (KeyLimits, which holds both APIs'
// limits, or the parts of a split output); both filters' rate-limit cluster, set by the
// controller's flags, is Istio's name for the serve Service; each filter's WasmPlugin says
// which key its pluginConfig comes from.
func TestExampleDeployments(t *testing.T) {
	gw := exampleObjects(t, "gateway-ratelimit.yaml")
	dep := gw["Deployment/rlpkit-ratelimit"]
	if dep == nil {
		t.Fatal("gateway-ratelimit.yaml: no Deployment rlpkit-ratelimit")
	}
	pod, _, _ := unstructured.NestedMap(dep.Object, "spec", "template", "spec")
	volumes, _, _ := unstructured.NestedSlice(pod, "volumes")
	containers, _, _ := unstructured.NestedSlice(pod, "containers")
	if len(volumes) != 1 || len(containers) != 1 {
		t.Fatalf("the Deployment has %d volumes and %d containers, want 1 and 1", len(volumes), len(containers))
	}
	vol := volumes[0].(map[string]any)
	sources, _, _ := unstructured.NestedSlice(vol, "projected", "sources")
	var mounted []string
	for i, src := range sources {
		cm, _, _ := unstructured.NestedMap(src.(map[string]any), "configMap")
		name, _ := cm["name"].(string)
		mounted = append(mounted, name)
		if _, hasItems := cm["items"]; hasItems {
			t.Errorf("the Deployment mounts only some keys of ConfigMap %s: mount it whole, a split output's keys are its parts", name)
		}
		if optional, _ := cm["optional"].(bool); i > 0 && !optional {
			t.Errorf("the part ConfigMap %s is not optional: a smaller output has fewer parts", name)
		}
	}
	want := []string{ConfigMapName("mygateway")}
	for n := 1; n <= 16; n++ {
		want = append(want, PartName("mygateway", n))
	}
	if diff := cmp.Diff(want, mounted); diff != "" {
		t.Errorf("the Deployment mounts the ConfigMaps (-want +got):\n%s", diff)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range want[:3] {
		if !strings.Contains(string(readme), "configMap: {name: "+name) {
			t.Errorf("the README's volume of rlpkit serve does not mount %s as the example does", name)
		}
	}
	c := containers[0].(map[string]any)
	mounts, _, _ := unstructured.NestedSlice(c, "volumeMounts")
	mountPath := mounts[0].(map[string]any)["mountPath"].(string)
	env, _, _ := unstructured.NestedSlice(c, "env")
	limitsDir := ""
	for _, e := range env {
		if e := e.(map[string]any); e["name"] == "RLPKIT_LIMITS" {
			limitsDir = e["value"].(string)
		}
	}
	if limitsDir != mountPath {
		t.Errorf("rlpkit serve reads RLPKIT_LIMITS=%q, want the mounted directory %q", limitsDir, mountPath)
	}

	svc := gw["Service/rlpkit-ratelimit"]
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	port := fmt.Sprint(ports[0].(map[string]any)["port"])
	cluster := "outbound|" + port + "||" + svc.GetName() + "." + svc.GetNamespace() + ".svc.cluster.local"

	ctl := exampleObjects(t, "controller.yaml")["Deployment/rlpkit-controller"]
	ctlContainers, _, _ := unstructured.NestedSlice(ctl.Object, "spec", "template", "spec", "containers")
	args, _, _ := unstructured.NestedStringSlice(ctlContainers[0].(map[string]any), "args")
	for _, flag := range []string{"--upstream-cluster=", "--kuadrant-ratelimit-endpoint="} {
		if !slices.Contains(args, flag+cluster) {
			t.Errorf("controller.yaml: args %q lack %s%s, Istio's name for the Service rlpkit-ratelimit", args, flag, cluster)
		}
	}
	for name, key := range map[string]string{"WasmPlugin/rlpkit": KeyPluginConfig, "WasmPlugin/kuadrant-wasm-shim": KeyKuadrantWasm} {
		wp := gw[name]
		if wp == nil {
			t.Errorf("gateway-ratelimit.yaml: no %s", name)
			continue
		}
		if target, _, _ := unstructured.NestedSlice(wp.Object, "spec", "targetRefs"); len(target) != 1 || target[0].(map[string]any)["name"] != "mygateway" {
			t.Errorf("%s targets %v, want the Gateway mygateway", name, target)
		}
		data, _ := os.ReadFile(filepath.Join("..", "examples", "kubernetes", "gateway-ratelimit.yaml"))
		if !strings.Contains(string(data), strings.ReplaceAll(key, ".", `\.`)) {
			t.Errorf("gateway-ratelimit.yaml does not say how to copy %s into %s", key, name)
		}
	}
}
