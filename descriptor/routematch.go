package descriptor

// PathMatchType is how a RouteMatch compares the request path, as Gateway API's
// HTTPPathMatch type.
type PathMatchType string

const (
	// PathMatchExact matches the path exactly (query string ignored).
	PathMatchExact PathMatchType = "Exact"
	// PathMatchPathPrefix matches whole path segments: "/abc" matches "/abc", "/abc/" and
	// "/abc/def", never "/abcd". A trailing "/" in the value is ignored.
	PathMatchPathPrefix PathMatchType = "PathPrefix"
)

// HeaderMatchType is how a RouteHeaderMatch compares the header value.
type HeaderMatchType string

const (
	// HeaderMatchExact compares the value exactly.
	HeaderMatchExact HeaderMatchType = "Exact"
	// HeaderMatchRegularExpression matches the whole value against an RE2 expression.
	HeaderMatchRegularExpression HeaderMatchType = "RegularExpression"
)

// RouteMatch is a Gateway API HTTPRouteMatch (path, method, headers): all set fields must
// match. A RouteMatch with no fields matches every request.
//
// +kubebuilder:object:generate=true
type RouteMatch struct {
	// Path matches the request path; unset means PathPrefix "/".
	// +optional
	Path *PathMatch `json:"path,omitempty"`
	// Method matches the request method exactly.
	// +optional
	Method string `json:"method,omitempty"`
	// Headers must all match. Names compare case-insensitively; a repeated header is
	// compared as its values joined with ",", as RFC 7230 section 3.2.2 combines them
	// (Gateway API leaves repeated headers to the implementation and points there; Envoy
	// does the same).
	// +optional
	Headers []RouteHeaderMatch `json:"headers,omitempty"`
}

// PathMatch is a Gateway API HTTPPathMatch.
//
// +kubebuilder:object:generate=true
type PathMatch struct {
	// Type is Exact or PathPrefix (default).
	// +optional
	Type PathMatchType `json:"type,omitempty"`
	// Value is the path, starting with "/" (default "/").
	// +optional
	Value string `json:"value,omitempty"`
}

// RouteHeaderMatch is a Gateway API HTTPHeaderMatch.
//
// +kubebuilder:object:generate=true
type RouteHeaderMatch struct {
	// Type is Exact (default) or RegularExpression.
	// +optional
	Type HeaderMatchType `json:"type,omitempty"`
	// Name is the header name. It MUST NOT be empty.
	Name string `json:"name"`
	// Value is the value to compare with.
	Value string `json:"value"`
}
