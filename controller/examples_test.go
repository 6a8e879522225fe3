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
// writes: rlpkit serve mounts the ConfigMap ConfigMap names for mygateway and reads its
// KeyLimits, which holds both APIs' limits; both filters' rate-limit cluster, set by the
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
	cmName, _, _ := unstructured.NestedString(vol, "configMap", "name")
	if want := ConfigMapName("mygateway"); cmName != want {
		t.Errorf("the Deployment mounts the ConfigMap %q, want %q (ConfigMapName)", cmName, want)
	}
	items, _, _ := unstructured.NestedSlice(vol, "configMap", "items")
	var keys []string
	for _, it := range items {
		keys = append(keys, it.(map[string]any)["key"].(string))
	}
	if !slices.Contains(keys, KeyLimits) {
		t.Errorf("the Deployment mounts the keys %q, want %q among them", keys, KeyLimits)
	}
	c := containers[0].(map[string]any)
	mounts, _, _ := unstructured.NestedSlice(c, "volumeMounts")
	mountPath := mounts[0].(map[string]any)["mountPath"].(string)
	env, _, _ := unstructured.NestedSlice(c, "env")
	limitsFile := ""
	for _, e := range env {
		if e := e.(map[string]any); e["name"] == "RLPKIT_LIMITS" {
			limitsFile = e["value"].(string)
		}
	}
	if want := mountPath + "/" + KeyLimits; limitsFile != want {
		t.Errorf("rlpkit serve reads RLPKIT_LIMITS=%q, want %q", limitsFile, want)
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
