package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// The CRD Envoy Gateway v1.9.1 publishes for BackendTrafficPolicy.
const btpCRD = "egv1alpha1/testdata/gateway.envoyproxy.io_backendtrafficpolicies.yaml"

// kitchenSink is a valid BackendTrafficPolicy that sets every field of the CRD's schema the
// package reads (targets, merge type, rate limits), so that the schema test can take each
// away, replace it with a bad value, or repeat it beyond its bound.
const kitchenSink = `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: sink, namespace: dairy}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: milk, sectionName: skim}
  targetSelectors:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    matchLabels: {app: milk}
    matchExpressions: [{key: tier, operator: In, values: [gold]}]
    namespaces:
      from: Selector
      selector:
        matchLabels: {team: dairy}
        matchExpressions: [{key: env, operator: Exists, values: []}]
  mergeType: StrategicMerge
  rateLimit:
    type: Global
    global:
      rules:
      - clientSelectors:
        - headers: [{name: x-user, type: Exact, value: alice, invert: true}]
          methods: [{value: GET, invert: false}]
          path: {type: PathPrefix, value: /api, invert: false}
          sourceCIDR: {type: Exact, value: 10.0.0.0/8, invert: false}
          queryParams: [{name: q, type: Exact, value: "1", invert: false}]
        limit:
          requests: 10
          unit: Minute
          fromMetadata: {namespace: io.tenant, key: limit}
        cost:
          request: {from: Number, number: 0}
          response: {from: Metadata, metadata: {namespace: io.cost, key: tokens}}
        shared: true
        shadowMode: false
        xRateLimitHeaders: "Off"
    local:
      rules:
      - clientSelectors:
        - headers: [{name: x-user, type: Exact, value: alice, invert: true}]
          methods: [{value: GET, invert: false}]
          path: {type: PathPrefix, value: /api, invert: false}
          sourceCIDR: {type: Exact, value: 10.0.0.0/8, invert: false}
          queryParams: [{name: q, type: Exact, value: "1", invert: false}]
        limit: {requests: 10, unit: Minute}
        cost:
          request: {from: Number, number: 1}
        shared: false
        shadowMode: false
        xRateLimitHeaders: DraftVersion03
`

// kitchenSink2 sets the properties kitchenSink cannot beside its own, the CRD's rules making
// them exclusive: targetRef, a request cost from metadata, a response cost of a number.
const kitchenSink2 = `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: sink, namespace: dairy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: milk, sectionName: skim}
  rateLimit:
    global:
      rules:
      - limit: {requests: 10, unit: Minute}
        cost:
          request: {from: Metadata, metadata: {namespace: io.cost, key: tokens}}
          response: {from: Number, number: 3}
    local:
      rules:
      - limit: {requests: 10, unit: Minute}
        cost:
          request: {from: Metadata, metadata: {namespace: io.cost, key: tokens}}
`

// forbidden are the properties the CRD's rules forbid where the schema lists them.
var forbidden = []string{
	"spec.rateLimit.local.rules[0].cost.response",
	"spec.rateLimit.local.rules[0].limit.fromMetadata",
}

// schemaNode is the part of an OpenAPI v3 schema the test reads.
type schemaNode struct {
	Type                 string                 `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	Items                *schemaNode            `json:"items"`
	AdditionalProperties *schemaNode            `json:"additionalProperties"`
	Required             []string               `json:"required"`
	Enum                 []string               `json:"enum"`
	Default              any                    `json:"default"`
	MaxItems             *int                   `json:"maxItems"`
	MaxLength            *int                   `json:"maxLength"`
	MinLength            *int                   `json:"minLength"`
	Maximum              *float64               `json:"maximum"`
	Minimum              *float64               `json:"minimum"`
	Validations          []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"x-kubernetes-validations"`
}

// btpSpecSchema returns the schema of spec in the published CRD.
func btpSpecSchema(t *testing.T) *schemaNode {
	t.Helper()
	data, err := os.ReadFile(btpCRD)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema schemaNode `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != egv1alpha1.Version {
		t.Fatalf("the CRD has versions %+v, want %s alone", crd.Spec.Versions, egv1alpha1.Version)
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
}

// readFields are the properties of spec whose schema the package reads; the others are
// Unread.
var readFields = []string{"targetRef", "targetRefs", "targetSelectors", "mergeType", "rateLimit"}

// TestBTPTypesMatchCRD checks the Go types against the CRD: every property of the spec has
// a field, and under the fields rlpkit reads, every property has a field of the schema's
// type and every field a property.
func TestBTPTypesMatchCRD(t *testing.T) {
	spec := btpSpecSchema(t)
	specType := reflect.TypeFor[egv1alpha1.BackendTrafficPolicySpec]()
	fields := jsonFieldTypes(specType)
	for name := range spec.Properties {
		ft, ok := fields[name]
		switch {
		case !ok:
			t.Errorf("spec.%s: in the CRD, not in BackendTrafficPolicySpec", name)
		case slices.Contains(readFields, name):
			compareSchema(t, "spec."+name, spec.Properties[name], ft)
		case ft != reflect.TypeFor[egv1alpha1.Unread]():
			t.Errorf("spec.%s: a field rlpkit does not read should be Unread, is %s", name, ft)
		}
	}
	for name := range fields {
		if spec.Properties[name] == nil {
			t.Errorf("spec.%s: in BackendTrafficPolicySpec, not in the CRD", name)
		}
	}
}

// compareSchema compares a schema node with the Go type a field decodes into.
func compareSchema(t *testing.T, path string, s *schemaNode, ft reflect.Type) {
	t.Helper()
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	want := map[string][]reflect.Kind{
		"string": {reflect.String}, "boolean": {reflect.Bool}, "array": {reflect.Slice},
		"integer": {reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64},
		"object":  {reflect.Struct, reflect.Map},
	}[s.Type]
	if !slices.Contains(want, ft.Kind()) {
		t.Errorf("%s: the CRD says %s, the Go type is %s", path, s.Type, ft)
		return
	}
	switch {
	case s.Type == "array":
		compareSchema(t, path+"[]", s.Items, ft.Elem())
	case s.Type == "object" && ft.Kind() == reflect.Map:
		if s.AdditionalProperties != nil {
			compareSchema(t, path+"{}", s.AdditionalProperties, ft.Elem())
		}
	case s.Type == "object":
		fields := jsonFieldTypes(ft)
		for name, sub := range s.Properties {
			if sft, ok := fields[name]; ok {
				compareSchema(t, path+"."+name, sub, sft)
			} else {
				t.Errorf("%s.%s: in the CRD, not in %s", path, name, ft)
			}
		}
		for name := range fields {
			if s.Properties[name] == nil {
				t.Errorf("%s.%s: in %s, not in the CRD", path, name, ft)
			}
		}
	}
}

// sinkDoc returns the kitchen sink as a JSON value.
func sinkDoc(t *testing.T) map[string]any { return sinkDocOf(t, kitchenSink) }

func sinkDocOf(t *testing.T, sink string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal([]byte(sink), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// decodeErrs decodes doc and returns its problems, nil when it is valid.
func decodeErrs(t *testing.T, doc map[string]any) Errors {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	set, err := Decode("btp.json", data)
	var errs Errors
	if err != nil && !errors.As(err, &errs) {
		t.Fatalf("Decode: %v", err)
	}
	if err == nil && len(set.BackendTrafficPolicies) != 1 {
		t.Fatalf("Decode read %d BackendTrafficPolicies, want 1", len(set.BackendTrafficPolicies))
	}
	return errs
}

// mutation is a change to the kitchen sink at a path of its JSON value.
type mutation struct {
	path string // "spec.rateLimit.global.rules[0].limit.unit"
	what string
	do   func(parent any, key any)
}

// TestBTPSchemaConformance takes every property of the schema the package reads, in the
// kitchen sink, and breaks it as the CRD forbids: a required property removed (unless the
// CRD defaults it), an enum given another value, a string too long or empty, a list too
// long, a number out of range, an unknown property added. Each must be a problem at its
// path; and the kitchen sink must set every property, so nothing escapes.
func TestBTPSchemaConformance(t *testing.T) {
	spec := btpSpecSchema(t)
	lacks := map[string]bool{} // property path -> set by some kitchen sink
	for i, sink := range []string{kitchenSink, kitchenSink2} {
		if errs := decodeErrs(t, sinkDocOf(t, sink)); len(errs) > 0 {
			t.Fatalf("kitchen sink %d is invalid:\n%v", i+1, errs)
		}
		var muts []mutation
		doc := sinkDocOf(t, sink)["spec"].(map[string]any)
		for _, name := range readFields {
			sub, ok := doc[name]
			note(lacks, "spec."+name, ok)
			if !ok {
				continue
			}
			muts = append(muts, mutations(lacks, "spec."+name, spec.Properties[name], sub)...)
		}
		runMutations(t, sink, muts)
	}
	for path, set := range lacks {
		if !set && !slices.Contains(forbidden, path) {
			t.Errorf("no kitchen sink sets %s", path)
		}
	}
}

// runMutations applies each mutation to a fresh copy of sink and checks it is a problem at
// its path.
func runMutations(t *testing.T, sink string, muts []mutation) {
	for _, m := range muts {
		t.Run(m.path+" "+m.what, func(t *testing.T) {
			d := sinkDocOf(t, sink)
			parent, key := locate(d, m.path)
			m.do(parent, key)
			errs := decodeErrs(t, d)
			if !slices.ContainsFunc(errs, func(e *Error) bool {
				return e.Field == m.path || strings.HasPrefix(e.Field, m.path+".") || strings.HasPrefix(e.Field, m.path+"[")
			}) {
				t.Errorf("%s %s: want a problem at %s, got %v", m.path, m.what, m.path, errs)
			}
		})
	}
}

// mutations lists the breakages of the value v at path under schema s, and notes in lacks
// the properties v sets and does not set.
func mutations(lacks map[string]bool, path string, s *schemaNode, v any) []mutation {
	var out []mutation
	set := func(x any) func(any, any) {
		return func(p, k any) { assign(p, k, x) }
	}
	if len(s.Enum) > 0 {
		out = append(out, mutation{path, "not in the enum", set("Bogus")})
	}
	if s.MaxLength != nil {
		out = append(out, mutation{path, "too long", set(strings.Repeat("a", *s.MaxLength+1))})
	}
	if s.MinLength != nil && *s.MinLength > 0 {
		out = append(out, mutation{path, "empty", set("")})
	}
	if s.Maximum != nil {
		out = append(out, mutation{path, "above the maximum", set(*s.Maximum + 1)})
	}
	if s.Minimum != nil {
		out = append(out, mutation{path, "below the minimum", set(*s.Minimum - 1)})
	}
	switch x := v.(type) {
	case []any:
		if s.MaxItems != nil {
			out = append(out, mutation{path, "too many items", func(p, k any) {
				list := make([]any, *s.MaxItems+1)
				for i := range list {
					list[i] = x[0]
				}
				assign(p, k, list)
			}})
		}
		for i, item := range x {
			out = append(out, mutations(lacks, fmt.Sprintf("%s[%d]", path, i), s.Items, item)...)
		}
	case map[string]any:
		if s.AdditionalProperties != nil {
			return out // a map of labels: any key
		}
		out = append(out, mutation{path, "with an unknown field", func(p, k any) { get(p, k).(map[string]any)["bogusField"] = true }})
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			sub := s.Properties[name]
			_, ok := x[name]
			note(lacks, path+"."+name, ok)
			if !ok {
				continue
			}
			if slices.Contains(s.Required, name) && sub.Default == nil {
				out = append(out, mutation{path + "." + name, "removed", func(p, k any) { delete(p.(map[string]any), k.(string)) }})
			}
			out = append(out, mutations(lacks, path+"."+name, sub, x[name])...)
		}
	}
	return out
}

// note records whether a kitchen sink sets the property at path; one that does wins.
func note(set map[string]bool, path string, ok bool) {
	set[path] = set[path] || ok
}

// locate returns the parent of the value at path in doc, and its key or index there.
func locate(doc map[string]any, path string) (any, any) {
	var parent any = doc
	var key any
	for _, part := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(part, "[")
		if key != nil {
			parent = get(parent, key)
		}
		key = name
		for idx != "" {
			var i int
			var rest string
			fmt.Sscanf(idx, "%d]", &i)
			_, rest, _ = strings.Cut(idx, "]")
			parent, key = get(parent, key), i
			idx = strings.TrimPrefix(rest, "[")
		}
	}
	return parent, key
}

func get(parent, key any) any {
	if i, ok := key.(int); ok {
		return parent.([]any)[i]
	}
	return parent.(map[string]any)[key.(string)]
}

func assign(parent, key, v any) {
	if i, ok := key.(int); ok {
		parent.([]any)[i] = v
		return
	}
	parent.(map[string]any)[key.(string)] = v
}

// TestBTPCELRules breaks every CEL rule of the spec's schema the package reads, and the
// spec-level rules, and checks each gives the CRD's message.
func TestBTPCELRules(t *testing.T) {
	spec := btpSpecSchema(t)
	cases := []struct {
		message string
		doc     string // replaces the spec
	}{
		{"either targetRef or targetRefs must be used", `{rateLimit: {}}`},
		{"this policy can only have a targetRef.group of gateway.networking.k8s.io", `{targetRef: {group: apps, kind: Gateway, name: g}}`},
		{"this policy can only have a targetRef.kind of Gateway/ListenerSet/HTTPRoute/GRPCRoute/TCPRoute/UDPRoute/TLSRoute", `{targetRef: {group: gateway.networking.k8s.io, kind: Service, name: g}}`},
		{"this policy can only have a targetRefs[*].group of gateway.networking.k8s.io", `{targetRefs: [{group: apps, kind: Gateway, name: g}]}`},
		{"this policy can only have a targetRefs[*].kind of Gateway/ListenerSet/HTTPRoute/GRPCRoute/TCPRoute/UDPRoute/TLSRoute", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Service, name: g}]}`},
		{"mergeType can only be used with xRoute targets", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}], mergeType: StrategicMerge}`},
		{"Replace is not a valid MergeType for BackendTrafficPolicySpec", `{targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}], mergeType: Replace}`},
		{"either compression or compressor can be set, not both", `{targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}], compression: [{type: Gzip}], compressor: [{type: Gzip}]}`},
		{"requestBuffer cannot be used together with httpUpgrade", `{targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}], requestBuffer: {limit: 1Ki}, httpUpgrade: [{type: websocket}]}`},
		{"admissionControl can only be used with HTTPRoute, GRPCRoute, Gateway, or ListenerSet targets", `{targetRefs: [{group: gateway.networking.k8s.io, kind: TCPRoute, name: r}], admissionControl: {}}`},
		{"predictivePercent in preconnect policy only works with RoundRobin or Random load balancers", `{targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}], connection: {preconnect: {predictivePercent: 150}}}`},
		{"group must be gateway.networking.k8s.io", `{targetSelectors: [{group: apps, kind: Gateway}]}`},
		{"selector must be specified when from is Selector", `{targetSelectors: [{kind: Gateway, namespaces: {from: Selector}}]}`},
		{"at least one of headers, methods, path, sourceCIDR or queryParams must be specified", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}], rateLimit: {global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Second}}]}}}`},
		{"only one of number or metadata can be specified", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}], rateLimit: {global: {rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Number, number: 1, metadata: {namespace: a, key: b}}}}]}}}`},
		{"response cost is not supported for Local Rate Limits", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}], rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second}, cost: {response: {from: Number, number: 1}}}]}}}`},
		{"limit fromMetadata is not supported for Local Rate Limits", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}], rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second, fromMetadata: {namespace: a, key: b}}}]}}}`},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		var specDoc map[string]any
		if err := yaml.Unmarshal([]byte(c.doc), &specDoc); err != nil {
			t.Fatalf("%s: %v", c.message, err)
		}
		d := sinkDoc(t)
		d["spec"] = specDoc
		errs := decodeErrs(t, d)
		if !slices.ContainsFunc(errs, func(e *Error) bool { return strings.Contains(e.Detail, c.message) }) {
			t.Errorf("spec %s: want %q, got %v", c.doc, c.message, errs)
		}
		covered[c.message] = true
	}
	var walk func(s *schemaNode, path string, all bool)
	walk = func(s *schemaNode, path string, all bool) {
		if s == nil {
			return
		}
		for _, v := range s.Validations {
			if !covered[v.Message] {
				t.Errorf("%s: the CRD's rule %q (%s) has no case", path, v.Message, v.Rule)
			}
		}
		for name, sub := range s.Properties {
			if all || slices.Contains(readFields, name) {
				walk(sub, path+"."+name, true)
			}
		}
		walk(s.Items, path+"[]", all)
	}
	walk(spec, "spec", false)
}
