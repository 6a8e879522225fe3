package policy

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeConfigMap reads ConfigMaps into the Set, in the default namespace when they name
// none, and finds them by namespace and name.
func TestDecodeConfigMap(t *testing.T) {
	const in = `apiVersion: v1
kind: ConfigMap
metadata: {name: body}
data: {response.body: '{"error": "slow down"}'}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: blob, namespace: shop}
binaryData: {page: aGk=}
`
	set, err := Decode("maps.yaml", []byte(in))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(set.Notices) != 0 {
		t.Errorf("Decode notices = %v, want none", set.Notices)
	}
	if cm := set.ConfigMap("default", "body"); cm == nil || cm.Data["response.body"] != `{"error": "slow down"}` {
		t.Errorf(`ConfigMap("default", "body") = %+v, want its response.body`, cm)
	}
	cm := set.ConfigMap("shop", "blob")
	if cm == nil {
		t.Fatal(`ConfigMap("shop", "blob") = nil`)
	}
	if diff := cmp.Diff(map[string][]byte{"page": []byte("hi")}, cm.BinaryData); diff != "" {
		t.Errorf("BinaryData (-want +got):\n%s", diff)
	}
	if cm := set.ConfigMap("default", "blob"); cm != nil {
		t.Errorf(`ConfigMap("default", "blob") = %+v, want nil`, cm)
	}
}

// TestTemplatedConfigMapSkipped checks that a chart's templated ConfigMap, which is not
// YAML, is still skipped with a notice rather than reported.
func TestTemplatedConfigMapSkipped(t *testing.T) {
	const in = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  {{- toYaml .Values.env | nindent 2 }}\n"
	set, err := Decode("templates/configmap.yaml", []byte(in))
	if err != nil {
		t.Fatalf("Decode(templated ConfigMap) = %v, want a notice", err)
	}
	if len(set.Notices) != 1 || len(set.ConfigMaps) != 0 {
		t.Errorf("Decode(templated ConfigMap): notices %v, %d ConfigMaps; want one notice, none", set.Notices, len(set.ConfigMaps))
	}
}

// TestDuplicateConfigMapSkipped checks that a second ConfigMap of one name, as kustomize
// overlays write, is skipped with a notice and the first kept.
func TestDuplicateConfigMapSkipped(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {env: %s}\n"
	r := newReader()
	r.add("base/cm.yaml", []byte(fmt.Sprintf(cm, "base")))
	r.add("prod/cm.yaml", []byte(fmt.Sprintf(cm, "prod")))
	set, err := r.result()
	if err != nil {
		t.Fatalf("reading two ConfigMaps default/app: %v", err)
	}
	if got := set.ConfigMap("default", "app"); got == nil || got.Data["env"] != "base" {
		t.Errorf(`ConfigMap("default", "app") = %+v, want the first`, got)
	}
	want := []Notice{{File: "prod/cm.yaml", Detail: "v1 ConfigMap default/app again (first at base/cm.yaml:1)"}}
	if diff := cmp.Diff(want, set.Notices); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}
