package policy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/internal/jsonerr"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
	"github.com/rlpkit/rlpkit/yamljson"
)

// DefaultNamespace is the namespace of a namespaced object that names none.
const DefaultNamespace = "default"

// kindInfo is how one kind is decoded and validated.
type kindInfo struct {
	apiVersion string
	namespaced bool
	// group is ObjectKey.Group of the kind's objects (see versionedKinds).
	group string
	// decode decodes obj into a new object and adds it to the set. Values of the wrong type
	// are reported in typeErrs and left out; the rest is decoded strictly.
	decode func(obj map[string]any) (o metav1.Object, add func(*Set), validate func() field.ErrorList, typeErrs field.ErrorList, strict []error, err error)
}

var kinds = map[string]kindInfo{
	KindGateway: {gatewayv1.GroupVersion.String(), true, "", decoder(func(gw *gatewayv1.Gateway) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Gateways = append(s.Gateways, gw) }, func() field.ErrorList { return ValidateGateway(gw) }
	})},
	KindHTTPRoute: {gatewayv1.GroupVersion.String(), true, "", decoder(func(r *gatewayv1.HTTPRoute) (func(*Set), func() field.ErrorList) {
		defaultHTTPRouteRules(r)
		return func(s *Set) { s.HTTPRoutes = append(s.HTTPRoutes, r) }, func() field.ErrorList { return ValidateHTTPRoute(r) }
	})},
	KindGRPCRoute: {gatewayv1.GroupVersion.String(), true, "", decoder(func(r *gatewayv1.GRPCRoute) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.GRPCRoutes = append(s.GRPCRoutes, r) }, func() field.ErrorList { return ValidateGRPCRoute(r) }
	})},
	KindRateLimitPolicy: {GroupVersion.String(), true, "", decoder(func(p *RateLimitPolicy) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Policies = append(s.Policies, p) }, func() field.ErrorList { return ValidateRateLimitPolicy(p) }
	})},
	KindNamespace: {"v1", false, "", decoder(func(ns *Namespace) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Namespaces = append(s.Namespaces, ns) }, func() field.ErrorList { return ValidateNamespace(ns) }
	})},
	KindConfigMap: {"v1", true, "", decoder(func(cm *ConfigMap) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.ConfigMaps = append(s.ConfigMaps, cm) }, func() field.ErrorList { return nil }
	})},
}

// decoder builds a kindInfo.decode for the object type T.
func decoder[T any, PT interface {
	*T
	metav1.Object
}](bind func(PT) (func(*Set), func() field.ErrorList)) func(map[string]any) (metav1.Object, func(*Set), func() field.ErrorList, field.ErrorList, []error, error) {
	return func(doc map[string]any) (metav1.Object, func(*Set), func() field.ErrorList, field.ErrorList, []error, error) {
		var tc typeChecker
		tc.check(doc, reflect.TypeFor[T](), nil)
		slices.SortFunc(tc.errs, func(a, b *field.Error) int { return cmp.Compare(a.Field, b.Field) })
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		obj := PT(new(T))
		strict, err := sigsjson.UnmarshalStrict(data, obj)
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		add, validate := bind(obj)
		return obj, add, validate, tc.errs, strict, nil
	}
}

// reader accumulates a Set and every problem met on the way.
type reader struct {
	set  *Set
	errs Errors
}

func newReader() *reader {
	return &reader{set: &Set{sources: map[ObjectKey]Source{}, lines: map[ObjectKey]func(string) int{}, problems: map[ObjectKey]field.ErrorList{}}}
}

// Decode reads one input: a stream of YAML or JSON documents holding Gateways, HTTPRoutes,
// GRPCRoutes (gateway.networking.k8s.io/v1), RateLimitPolicies (apim.kuadrant.io/v1alpha1 and
// kuadrant.io/v1), TokenRateLimitPolicies (kuadrant.io/v1alpha1), BackendTrafficPolicies
// (gateway.envoyproxy.io/v1alpha1), Namespaces, ConfigMaps and Lists of them (v1);
// PluginConfigs and limits files are checked, and other documents
// skipped with a Notice (see the package documentation). file names the input in errors.
// It returns the objects read, and, when anything is wrong, Errors naming every problem.
//
// Values of the wrong type are found before decoding, by walking the document against the
// Go type it decodes into (the fields encoding/json would fill, embedded and inline structs
// included; types with their own UnmarshalJSON, such as metav1.Time, are checked by
// decoding the value alone). Each is reported at its own line with its full path
// (spec.default.rateLimits[2].seconds: Invalid value: "1m": must be an integer number of
// seconds: write 60 for 1m) and left out, so that the rest of the object decodes, its other
// problems are reported too, and it is kept with the problem. A validation problem that only
// follows from a value left out (its zero value, a duplicate of the limit that held it) is
// not reported again. Integers written as floats (1e3, 60.0) are integers, as in a limits
// file.
//
// max_value and seconds are required in every rate limit, as in a limits file: the types
// keep plain ints, so decoding tells absence from 0 on the document itself, and reports an
// absent or null max_value or seconds as Required value. max_value: 0 written out is valid
// and admits no request.
func Decode(file string, data []byte) (*Set, error) {
	r := newReader()
	r.add(file, data)
	return r.result()
}

func (r *reader) result() (*Set, error) {
	if len(r.errs) > 0 {
		return r.set, r.errs
	}
	return r.set, nil
}

func (r *reader) fail(src Source, object, path, detail string) {
	r.failFrom(src, object, path, detail, nil)
}

// failFrom is fail for a problem another package reported as cause: a
// *field.Error of validation or a *fielderr.Error of descriptor or limit.
func (r *reader) failFrom(src Source, object, path, detail string, cause error) {
	r.errs = append(r.errs, &Error{Source: src, Object: object, Field: path, Detail: detail, Err: cause})
}

// failFields records each field error of err, a fielderr.List of the document at o, as a
// problem of object, and reports whether there was any.
func (r *reader) failFields(o objectAt, object string, err error) bool {
	var list fielderr.List
	if !errors.As(err, &list) {
		return false
	}
	for _, e := range list {
		r.failFrom(o.source(e.Field), object, e.Field, e.Detail, e)
	}
	return true
}

// add reads every document of one input.
func (r *reader) add(file string, data []byte) {
	docs, err := yamljson.Convert(data)
	if err != nil && isTemplate(data) {
		// A Helm template: not YAML until rendered, and of no kind rlpkit reads.
		var ye *yamljson.Error
		detail := "a template, not YAML"
		if errors.As(err, &ye) && ye.Line > 0 {
			detail = fmt.Sprintf("a template, not YAML (line %d: %s), that names no Gateway API or Kuadrant object", ye.Line, ye.Msg)
		}
		r.set.Notices = append(r.set.Notices, Notice{File: file, Detail: detail})
		return
	}
	if err != nil {
		var list []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			list = j.Unwrap()
		} else {
			list = []error{err}
		}
		for _, e := range list {
			src := Source{File: file}
			msg := e.Error()
			var ye *yamljson.Error
			if errors.As(e, &ye) {
				src.Doc, src.Line, msg = ye.Doc, ye.Line, ye.Msg
			}
			r.fail(src, "", "", "YAML: "+msg)
		}
		return
	}
	first := len(r.errs)
	var skipped []string
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		v, err := parseJSON(docs[i].JSON)
		if err != nil { // yamljson writes valid JSON; this is a defect, reported, not hidden
			r.fail(Source{File: file, Doc: i, Line: docs[i].StartLine}, "", "", "cannot decode: "+err.Error())
			continue
		}
		r.addValue(file, &docs[i], v, "", &skipped)
	}
	if len(skipped) > 0 {
		r.set.Notices = append(r.set.Notices, Notice{File: file, Detail: strings.Join(skipped, ", ")})
	}
	// Within a file, report problems in the order they are written.
	slices.SortStableFunc(r.errs[first:], func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Line, b.Line))
	})
}

// addValue reads one parsed document, or a List's item at prefix, by what it holds; what it
// skips it adds to skipped, each once.
func (r *reader) addValue(file string, doc *yamljson.Document, v any, prefix string, skipped *[]string) {
	o := objectAt{file: file, doc: doc, prefix: prefix}
	skip := func(what string) {
		if !slices.Contains(*skipped, what) {
			*skipped = append(*skipped, what)
		}
	}
	h := classify(v)
	if prefix != "" && h.content != ContentObjects && h.content != ContentForeign {
		// A List's items are Kubernetes objects; a PluginConfig or limits is a file of its own.
		r.fail(o.source(""), "", prefix, "expected an object with apiVersion and kind")
		return
	}
	switch h.content {
	case ContentEmpty:
	case ContentObjects:
		r.addObject(o, v.(map[string]any), h, skipped)
	case ContentForeign:
		if h.kind == PolicyTestKind && h.apiVersion == PolicyTestAPIVersion {
			return // package policytest reads it; no notice
		}
		skip(h.label())
	case ContentPluginConfig:
		cfg, err := descriptor.Decode(doc.JSON)
		if err == nil {
			err = descriptor.Validate(cfg)
		}
		if r.failFields(o, "PluginConfig", err) {
			return
		}
		r.set.PluginConfigs = append(r.set.PluginConfigs, cfg)
	case ContentLimits:
		limits, err := limitador.DecodeLimits(doc.JSON)
		if r.failFields(o, "limits", err) {
			return
		}
		r.set.LimitLists = append(r.set.LimitLists, limits)
	case ContentCompileOutput:
		skip("the output of rlpkit compile")
	default:
		skip("not a Kubernetes object")
	}
}

// addObject decodes an object that rlpkit reads, or reports why it cannot.
func (r *reader) addObject(o objectAt, m map[string]any, h docHead, skipped *[]string) {
	if h.kind == "List" && h.apiVersion == "v1" {
		r.addList(o, m, skipped)
		return
	}
	info, ok := r.kindFor(o, h)
	if !ok {
		return
	}
	if h.kind == KindConfigMap {
		// Kustomize overlays and charts repeat ConfigMaps of one name: the first is kept and
		// a later one skipped with a notice, not reported as a duplicate.
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		key := ObjectKey{Kind: KindConfigMap, Namespace: cmp.Or(ns, DefaultNamespace), Name: name}
		if first, dup := r.set.sources[key]; dup && name != "" {
			what := "v1 ConfigMap " + key.Namespace + "/" + name + " again (first at " + first.String() + ")"
			if !slices.Contains(*skipped, what) {
				*skipped = append(*skipped, what)
			}
			return
		}
	}
	r.decodeObject(o, m, h, info)
}

// objectAt is where a document's value stands: its file, its document and, for a List's
// item, the item's path in the document.
type objectAt struct {
	file   string
	doc    *yamljson.Document
	prefix string
}

// source returns the Source of the value's field at path.
func (o objectAt) source(path string) Source {
	return Source{File: o.file, Doc: o.doc.Index, Line: o.doc.Line(joinPath(o.prefix, path))}
}

// failAt reports a problem of the value's field at path; cause as for failFrom.
func (r *reader) failAt(o objectAt, object, path, detail string, cause error) {
	r.failFrom(o.source(path), object, joinPath(o.prefix, path), detail, cause)
}

// addList reads the items of a v1 List.
func (r *reader) addList(o objectAt, m map[string]any, skipped *[]string) {
	raw, present := m["items"]
	items, ok := raw.([]any)
	if !ok && present && raw != nil {
		r.failAt(o, "", "items", "Invalid value: expected a list of objects", nil)
		return
	}
	for i, item := range items {
		r.addValue(o.file, o.doc, item, joinPath(o.prefix, fmt.Sprintf("items[%d]", i)), skipped)
	}
}

// kindFor returns how an object of h's kind and apiVersion is read, or reports that rlpkit
// does not read it and returns false.
func (r *reader) kindFor(o objectAt, h docHead) (kindInfo, bool) {
	info, ok := kinds[h.kind]
	if vi, versioned := versionedKinds[h.apiVersion+" "+h.kind]; versioned {
		info, ok = vi, true
	}
	switch {
	case h.kind == "":
		r.failAt(o, "", "kind", "Required value: every document needs apiVersion and kind", nil)
	case h.kind == kuadrantv1alpha1.Kind && !ok:
		r.failAt(o, "", "apiVersion", fmt.Sprintf("Unsupported value: %q: %s is read as %s", h.apiVersion, h.kind, kuadrantv1alpha1.GroupVersion), nil)
	case h.kind == "List" || !ok:
		r.failAt(o, "", "kind", fmt.Sprintf("Unsupported value: %q: not a kind rlpkit reads or skips in %s; supported kinds: %s", h.kind, cmp.Or(h.apiVersion, "an object without apiVersion"), supportedKinds), nil)
	case h.apiVersion != info.apiVersion && h.kind == KindRateLimitPolicy && apiGroup(h.apiVersion) == kuadrantGroup:
		r.failAt(o, "", "apiVersion", fmt.Sprintf("Unsupported value: %q: rlpkit does not support the RateLimitPolicy of %s; it reads %s RateLimitPolicies (spec.targetRef, spec.limits or spec.defaults or spec.overrides) and %s ones (spec.targetRef, spec.default and spec.override with gatewayActions and rateLimits)", h.apiVersion, h.apiVersion, kuadrantv1.GroupVersion, info.apiVersion), nil)
	case h.apiVersion != info.apiVersion:
		r.failAt(o, "", "apiVersion", fmt.Sprintf("Unsupported value: %q: %s is read as %s", h.apiVersion, h.kind, info.apiVersion), nil)
	default:
		return info, true
	}
	return kindInfo{}, false
}

// decodeObject decodes an object of a kind rlpkit reads, reports its problems and adds it to
// the set, unless it has no name or another object has its name.
func (r *reader) decodeObject(o objectAt, m map[string]any, h docHead, info kindInfo) {
	meta, _ := m["metadata"].(map[string]any)
	headName, _ := meta["name"].(string)
	headNamespace, _ := meta["namespace"].(string)
	obj, addTo, validate, typeErrs, strict, err := info.decode(m)
	if err != nil {
		key := ObjectKey{Kind: h.kind, Group: info.group, Name: headName}
		if info.namespaced {
			key.Namespace = cmp.Or(headNamespace, DefaultNamespace)
		}
		path, detail := jsonerr.Describe(err)
		r.failAt(o, key.String(), path, detail, nil)
		return
	}
	if info.namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(DefaultNamespace)
	}
	key := ObjectKey{Kind: h.kind, Group: info.group, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if !info.namespaced {
		key.Namespace = ""
	}
	label := key.String()
	if obj.GetName() == "" {
		label = h.kind
	}
	problems := r.decodeProblems(o, label, typeErrs, strict)
	if obj.GetName() == "" {
		if !hasPath(typeErrs, "metadata.name") {
			r.fail(o.source("metadata"), h.kind, joinPath(o.prefix, "metadata.name"), "Required value")
		}
		return
	}
	if first, dup := r.set.sources[key]; dup {
		r.failAt(o, label, "metadata.name", "Duplicate value: "+label+" is also defined at "+first.String(), nil)
		return
	}
	for _, fe := range validate() {
		if covered(typeErrs, fe.Field) {
			continue // the value was left out for its type: its zero value is no news
		}
		r.failAt(o, label, fe.Field, fe.ErrorBody(), fe)
		problems = append(problems, fe)
	}
	r.set.sources[key] = o.source("")
	r.set.lines[key] = func(path string) int { return o.source(path).Line }
	if len(problems) > 0 {
		r.set.problems[key] = problems
	}
	addTo(r.set)
}

// decodeProblems reports the values of the wrong type (typeErrs) and the unknown and
// duplicate fields (strict) of the object labelled label, and returns them all.
func (r *reader) decodeProblems(o objectAt, label string, typeErrs field.ErrorList, strict []error) field.ErrorList {
	problems := typeErrs
	for _, fe := range typeErrs {
		r.failAt(o, label, fe.Field, fe.ErrorBody(), fe)
	}
	for _, e := range strict {
		path, detail := jsonerr.Strict(e)
		r.failAt(o, label, path, detail, nil)
		problems = append(problems, &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: field.OmitValueType{}, Detail: detail})
	}
	return problems
}

// oursRE finds, in a file that is not YAML, a sign that it was meant to hold what rlpkit
// reads: an API group of the Gateway API or Kuadrant, a kind rlpkit reads (but ConfigMap,
// which charts template for their own use), or a field of a PluginConfig or a limits file.
var oursRE = regexp.MustCompile(`gateway\.networking\.k8s\.io|kuadrant\.io|gateway\.envoyproxy\.io|\bkind["']?\s*:\s*["']?(Gateway|HTTPRoute|GRPCRoute|RateLimitPolicy|BackendTrafficPolicy|Namespace|List)\b|rateLimitPolicies|ratelimitpolicies|max_value`)

// isTemplate says whether a file that is not YAML is a template (Helm's, or any that uses
// "{{ }}") that names nothing rlpkit reads: such a file is skipped, any other is an error.
func isTemplate(data []byte) bool {
	return bytes.Contains(data, []byte("{{")) && !oursRE.Match(data)
}

// supportedKinds lists the kinds and versions rlpkit reads, for messages.
const supportedKinds = "Gateway, HTTPRoute, GRPCRoute (gateway.networking.k8s.io/v1), RateLimitPolicy (apim.kuadrant.io/v1alpha1, kuadrant.io/v1), TokenRateLimitPolicy (kuadrant.io/v1alpha1), AuthPolicy (kuadrant.io/v1), BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1), Namespace, ConfigMap, List (v1)"

func hasPath(errs field.ErrorList, path string) bool {
	return slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Field == path })
}

// covered says whether a validation problem at path follows from a type or required-value
// problem: at the same path, under it, or on the list element that holds it (a duplicate
// of a limit whose seconds were left out).
func covered(typeErrs field.ErrorList, path string) bool {
	for _, e := range typeErrs {
		switch {
		case e.Field == path, strings.HasPrefix(path, e.Field+"."), strings.HasPrefix(path, e.Field+"["):
			return true
		case strings.HasSuffix(path, "]") && strings.HasPrefix(e.Field, path+"."):
			return true
		}
	}
	return false
}

func joinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	}
	return prefix + "." + path
}
