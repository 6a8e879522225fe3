package policy

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/rlpkit/rlpkit/yamljson"
)

// DefaultNamespace is the namespace of a namespaced object that names none.
const DefaultNamespace = "default"

// kindInfo is how one kind is decoded and validated.
type kindInfo struct {
	apiVersion string
	namespaced bool
	// decode strictly decodes data into a new object and adds it to the set.
	decode func(data []byte) (obj metav1.Object, add func(*Set), validate func() field.ErrorList, strict []error, err error)
}

var kinds = map[string]kindInfo{
	KindGateway: {gatewayv1.GroupVersion.String(), true, decoder(func(gw *gatewayv1.Gateway) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Gateways = append(s.Gateways, gw) }, func() field.ErrorList { return ValidateGateway(gw) }
	})},
	KindHTTPRoute: {gatewayv1.GroupVersion.String(), true, decoder(func(r *gatewayv1.HTTPRoute) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.HTTPRoutes = append(s.HTTPRoutes, r) }, func() field.ErrorList { return ValidateHTTPRoute(r) }
	})},
	KindRateLimitPolicy: {GroupVersion.String(), true, decoder(func(p *RateLimitPolicy) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Policies = append(s.Policies, p) }, func() field.ErrorList { return ValidateRateLimitPolicy(p) }
	})},
	KindNamespace: {"v1", false, decoder(func(ns *Namespace) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.Namespaces = append(s.Namespaces, ns) }, func() field.ErrorList { return ValidateNamespace(ns) }
	})},
}

// decoder builds a kindInfo.decode for the object type T.
func decoder[T any, PT interface {
	*T
	metav1.Object
}](bind func(PT) (func(*Set), func() field.ErrorList)) func([]byte) (metav1.Object, func(*Set), func() field.ErrorList, []error, error) {
	return func(data []byte) (metav1.Object, func(*Set), func() field.ErrorList, []error, error) {
		obj := PT(new(T))
		strict, err := sigsjson.UnmarshalStrict(data, obj)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		add, validate := bind(obj)
		return obj, add, validate, strict, nil
	}
}

// reader accumulates a Set and every problem met on the way.
type reader struct {
	set  *Set
	errs Errors
}

func newReader() *reader {
	return &reader{set: &Set{sources: map[ObjectKey]Source{}, problems: map[ObjectKey]field.ErrorList{}}}
}

// Decode reads one input: a stream of YAML or JSON documents holding Gateways, HTTPRoutes
// (gateway.networking.k8s.io/v1), RateLimitPolicies (apim.kuadrant.io/v1alpha1), Namespaces
// and Lists of them (v1). file names the input in errors. It returns the objects that
// decoded, and, when anything is wrong, Errors naming every problem.
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
	r.errs = append(r.errs, &Error{Source: src, Object: object, Field: path, Detail: detail})
}

// add reads every document of one input.
func (r *reader) add(file string, data []byte) {
	docs, err := yamljson.Convert(data)
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
			r.fail(src, "", "", msg)
		}
		return
	}
	first := len(r.errs)
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		r.addDocument(file, &docs[i], docs[i].JSON, "")
	}
	// Within a file, report problems in the order they are written.
	slices.SortStableFunc(r.errs[first:], func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Line, b.Line))
	})
}

// addDocument decodes one object (or a List) whose JSON is data, at prefix within doc.
func (r *reader) addDocument(file string, doc *yamljson.Document, data []byte, prefix string) {
	at := func(path string) Source {
		full := joinPath(prefix, path)
		return Source{File: file, Doc: doc.Index, Line: doc.Line(full)}
	}
	var head struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Items      json.RawMessage `json:"items"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		r.fail(at(""), "", prefix, "expected an object with apiVersion and kind")
		return
	}
	if head.Kind == "List" && head.APIVersion == "v1" {
		var items []json.RawMessage
		if err := json.Unmarshal(head.Items, &items); err != nil && len(head.Items) > 0 {
			r.fail(at("items"), "", joinPath(prefix, "items"), "expected a list of objects")
			return
		}
		for i, item := range items {
			r.addDocument(file, doc, item, joinPath(prefix, fmt.Sprintf("items[%d]", i)))
		}
		return
	}
	if head.Kind == PolicyTestKind && head.APIVersion == PolicyTestAPIVersion {
		return // package policytest reads it
	}
	info, ok := kinds[head.Kind]
	switch {
	case head.Kind == "":
		r.fail(at("kind"), "", joinPath(prefix, "kind"), "Required value: every document needs apiVersion and kind")
		return
	case !ok:
		r.fail(at("kind"), "", joinPath(prefix, "kind"), fmt.Sprintf("Unsupported value: %q: supported kinds: Gateway, HTTPRoute (gateway.networking.k8s.io/v1), RateLimitPolicy (apim.kuadrant.io/v1alpha1), Namespace, List (v1)", head.Kind))
		return
	case head.APIVersion != info.apiVersion:
		r.fail(at("apiVersion"), "", joinPath(prefix, "apiVersion"), fmt.Sprintf("Unsupported value: %q: %s is read as %s", head.APIVersion, head.Kind, info.apiVersion))
		return
	}

	obj, addTo, validate, strict, err := info.decode(data)
	if err != nil {
		key := ObjectKey{Kind: head.Kind, Name: head.Metadata.Name}
		if info.namespaced {
			key.Namespace = cmp.Or(head.Metadata.Namespace, DefaultNamespace)
		}
		path, detail := describeDecodeError(err)
		r.fail(at(path), key.String(), joinPath(prefix, path), detail)
		return
	}
	if info.namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(DefaultNamespace)
	}
	key := ObjectKey{Kind: head.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if !info.namespaced {
		key.Namespace = ""
	}
	label := key.String()
	var problems field.ErrorList
	for _, e := range strict {
		path := e.Error()
		var fe sigsjson.FieldError
		if errors.As(e, &fe) {
			path = fe.FieldPath()
		}
		detail := "unknown field"
		if strings.Contains(e.Error(), "duplicate field") {
			detail = "duplicate field"
		}
		r.fail(at(path), label, joinPath(prefix, path), detail)
		problems = append(problems, &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: field.OmitValueType{}, Detail: detail})
	}
	if obj.GetName() == "" {
		r.fail(at("metadata"), head.Kind, joinPath(prefix, "metadata.name"), "Required value")
		return
	}
	if first, dup := r.set.sources[key]; dup {
		r.fail(at("metadata.name"), label, joinPath(prefix, "metadata.name"), "Duplicate value: "+label+" is also defined at "+first.String())
		return
	}
	invalid := validate()
	for _, fe := range invalid {
		r.fail(at(fe.Field), label, joinPath(prefix, fe.Field), fe.ErrorBody())
	}
	problems = append(problems, invalid...)
	r.set.sources[key] = at("")
	if len(problems) > 0 {
		r.set.problems[key] = problems
	}
	addTo(r.set)
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

// typeErrorRE picks the field and the wanted type out of encoding/json's type errors.
var typeErrorRE = regexp.MustCompile(`cannot unmarshal (\S+) into Go struct field [^.\s]+\.(\S+) of type (\S+)`)

// describeDecodeError turns a decoding error into a field path and a message.
func describeDecodeError(err error) (path, detail string) {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if m := typeErrorRE.FindStringSubmatch(msg); m != nil {
		return m[2], fmt.Sprintf("Invalid value: %s: must be %s", m[1], m[3])
	}
	return "", "cannot decode: " + msg
}
