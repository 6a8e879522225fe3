package policy

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/yamljson"
)

// Content is what a YAML or JSON document holds, as rlpkit sees it. Every command decides
// with it what to do with a file: Read reads objects and checks PluginConfigs and limits
// files, and skips the rest; a flag that takes one kind of file names the kind it got.
type Content int

const (
	// ContentEmpty is a file with no document, or only empty ones.
	ContentEmpty Content = iota
	// ContentObjects is Kubernetes objects that rlpkit reads, or that claim to be Gateway
	// API or Kuadrant objects: Gateways, HTTPRoutes, RateLimitPolicies, Namespaces, Lists,
	// and objects of those API groups of kinds or versions rlpkit does not support (which
	// are errors, not skipped).
	ContentObjects
	// ContentPluginConfig is a PluginConfig (package descriptor), in either schema: an object
	// without apiVersion and kind holding rateLimitPolicies or failureModeDeny (or the
	// legacy ratelimitpolicies or failure_mode_deny).
	ContentPluginConfig
	// ContentLimits is a limits file in limitador's format (package limit/limitador): a list whose
	// items are objects with namespace, max_value, seconds, conditions or variables.
	ContentLimits
	// ContentCompileOutput is what "rlpkit compile" prints: an object with gateways and
	// policies.
	ContentCompileOutput
	// ContentForeign is Kubernetes objects of other kinds (a Deployment, a Service, a
	// Kustomization, a GatewayClass): skipped.
	ContentForeign
	// ContentOther is YAML or JSON that is not a Kubernetes object (a Helm values file, a
	// package.json): skipped.
	ContentOther
)

// The API groups whose objects are errors, not skipped, when rlpkit cannot read them.
const (
	gatewayGroup  = "gateway.networking.k8s.io"
	kuadrantGroup = "kuadrant.io"
)

// knownForeign are kinds of the Gateway API and Kuadrant groups that rlpkit does not read
// and skips; any other kind in those groups is reported, as a likely mistake.
var knownForeign = map[string]bool{
	"GatewayClass": true, "TLSRoute": true, "TCPRoute": true, "UDPRoute": true,
	"ReferenceGrant": true, "BackendTLSPolicy": true, "ListenerSet": true, "XListenerSet": true,
	"XBackendTrafficPolicy": true, "BackendLBPolicy": true, "XMesh": true,
	"DNSPolicy": true, "TLSPolicy": true,
	"Kuadrant": true, "Authorino": true, "Limitador": true, "AuthConfig": true, "DNSRecord": true,
	"PlanPolicy": true, "OIDCPolicy": true, "TelemetryPolicy": true,
}

// docHead is what classification reads of a document.
type docHead struct {
	content    Content
	apiVersion string // of a Kubernetes object
	kind       string
}

// label names a Kubernetes object's type as "apps/v1 Deployment".
func (h docHead) label() string { return strings.TrimSpace(h.apiVersion + " " + h.kind) }

// apiGroup returns the group of an apiVersion: "apps" of "apps/v1", "" of "v1".
func apiGroup(apiVersion string) string {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return group
}

// isForeignGroup says whether an object of a kind rlpkit reads belongs to another API
// group, and is skipped: any named group but the Gateway API's and Kuadrant's. The core
// group ("v1") is not foreign: a Gateway of apiVersion v1 is a Gateway API Gateway with a
// mistake, reported.
func isForeignGroup(group string) bool { return group != "" && !isOurGroup(group) }

func isOurGroup(group string) bool {
	return group == gatewayGroup || group == Group || group == kuadrantGroup || strings.HasSuffix(group, "."+kuadrantGroup)
}

// classify says what a parsed document (numbers as json.Number) holds.
func classify(v any) docHead {
	switch v := v.(type) {
	case nil:
		return docHead{content: ContentEmpty}
	case []any:
		if looksLikeLimits(v) {
			return docHead{content: ContentLimits}
		}
		return docHead{content: ContentOther}
	case map[string]any:
		return classifyObject(v)
	}
	return docHead{content: ContentOther}
}

func classifyObject(obj map[string]any) docHead {
	apiVersion, hasVersion := obj["apiVersion"].(string)
	kind, hasKind := obj["kind"].(string)
	_, versionKey := obj["apiVersion"]
	_, kindKey := obj["kind"]
	h := docHead{apiVersion: apiVersion, kind: kind}
	_, ours := kinds[kind]
	_, versioned := versionedKinds[apiVersion+" "+kind]
	switch {
	case hasKind && hasVersion && versioned:
		h.content = ContentObjects
	case !versionKey && !kindKey:
		for _, k := range []string{"rateLimitPolicies", "failureModeDeny", "ratelimitpolicies", "failure_mode_deny"} {
			if _, ok := obj[k]; ok {
				h.content = ContentPluginConfig
				return h
			}
		}
		_, gateways := obj["gateways"]
		_, policies := obj["policies"]
		if gateways && policies {
			h.content = ContentCompileOutput
			return h
		}
		h.content = ContentOther
		if _, ok := obj["metadata"]; ok {
			h.content = ContentObjects // an object that forgot its kind
		}
	case hasKind && ours && hasVersion && isForeignGroup(apiGroup(apiVersion)):
		// A kind rlpkit reads, of another API group: an Istio networking.istio.io
		// Gateway is not a Gateway API Gateway.
		h.content = ContentForeign
	case hasKind && (ours || kind == "List"):
		h.content = ContentObjects
	case hasVersion && isOurGroup(apiGroup(apiVersion)):
		h.content = ContentObjects
		if hasKind && knownForeign[kind] {
			h.content = ContentForeign
		}
	case hasVersion && hasKind:
		h.content = ContentForeign
	default:
		h.content = ContentOther // a Helm Chart.yaml has an apiVersion and no kind
	}
	return h
}

// looksLikeLimits says whether a list is a limits file: empty, or objects with fields of
// a limit.
func looksLikeLimits(items []any) bool {
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return false
		}
		found := false
		for _, k := range []string{"namespace", "max_value", "seconds", "conditions", "variables"} {
			if _, ok := obj[k]; ok {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// FileContent is what a file holds: the Content of its documents, and the kinds of the
// Kubernetes objects among them.
type FileContent struct {
	// Content is the file's content: ContentObjects when any document holds objects rlpkit
	// reads, else the content of its first non-empty document.
	Content Content
	// Kinds are the kinds of the objects ("RateLimitPolicy", or "apps/v1 Deployment" for
	// kinds rlpkit does not read), each once, in the order written.
	Kinds []string
}

// String describes the content for a message that begins "this file holds ":
// "RateLimitPolicy objects", "a PluginConfig", "a list of limits in limitador's format".
func (f FileContent) String() string {
	switch f.Content {
	case ContentEmpty:
		return "no document"
	case ContentObjects:
		return strings.Join(f.Kinds, ", ") + " objects"
	case ContentPluginConfig:
		return "a PluginConfig"
	case ContentLimits:
		return "a list of limits in limitador's format"
	case ContentCompileOutput:
		return "the output of rlpkit compile"
	case ContentForeign:
		return strings.Join(f.Kinds, ", ") + " objects, which rlpkit does not read"
	}
	return "no Kubernetes object"
}

// Identify says what a file holds, from its data (YAML or JSON). It returns an error only
// when the data is not YAML; Read reports the same error with its line.
func Identify(data []byte) (FileContent, error) {
	docs, err := yamljson.Convert(data)
	if err != nil {
		return FileContent{}, err
	}
	var fc FileContent
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		v, err := parseJSON(docs[i].JSON)
		if err != nil {
			return FileContent{}, err
		}
		identifyValue(&fc, v, false)
	}
	return fc, nil
}

// identifyValue adds a document, or a List's item, to fc. A List's items that are not
// Kubernetes objects are problems of the List, not content.
func identifyValue(fc *FileContent, v any, item bool) {
	h := classify(v)
	if h.content == ContentEmpty || item && h.content != ContentObjects && h.content != ContentForeign {
		return
	}
	if h.kind == "List" && h.content == ContentObjects {
		items, _ := v.(map[string]any)["items"].([]any)
		for _, it := range items {
			identifyValue(fc, it, true)
		}
		if fc.Content == ContentEmpty {
			fc.Content = ContentObjects
		}
		return
	}
	switch {
	case h.content == ContentObjects && fc.Content != ContentObjects:
		fc.Content, fc.Kinds = ContentObjects, nil
	case fc.Content == ContentEmpty:
		fc.Content = h.content
	}
	name := h.label()
	if h.content == ContentObjects {
		name = h.kind
	}
	if (h.content == ContentObjects || h.content == ContentForeign && fc.Content == ContentForeign) && name != "" && !slices.Contains(fc.Kinds, name) {
		fc.Kinds = append(fc.Kinds, name)
	}
}

// parseJSON decodes one JSON value with numbers kept as json.Number.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
