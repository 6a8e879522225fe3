package descriptor

// Action is one Envoy rate-limit action (envoy.config.route.v3.RateLimit.Action). Exactly
// one of its fields must be set.
//
// +kubebuilder:object:generate=true
type Action struct {
	// GenericKey appends a fixed entry.
	// +optional
	GenericKey *GenericKey `json:"generic_key,omitempty"`
	// RequestHeaders appends the value of a request header.
	// +optional
	RequestHeaders *RequestHeaders `json:"request_headers,omitempty"`
	// RemoteAddress appends the client address.
	// +optional
	RemoteAddress *RemoteAddress `json:"remote_address,omitempty"`
	// Metadata appends a string read from dynamic or route metadata.
	// +optional
	Metadata *MetadataAction `json:"metadata,omitempty"`
	// HeaderValueMatch appends a fixed entry when the request's headers match.
	// +optional
	HeaderValueMatch *HeaderValueMatch `json:"header_value_match,omitempty"`
	// RemoteAddressMatch appends an entry when the client address is in (or out of) a set
	// of CIDR ranges.
	// +optional
	RemoteAddressMatch *RemoteAddressMatch `json:"remote_address_match,omitempty"`
	// QueryParameterValueMatch appends a fixed entry when the request's query parameters
	// match.
	// +optional
	QueryParameterValueMatch *QueryParameterValueMatch `json:"query_parameter_value_match,omitempty"`
	// QueryParameters appends the value of a query parameter.
	// +optional
	QueryParameters *QueryParameters `json:"query_parameters,omitempty"`
}

// GenericKey appends the entry (DescriptorKey, DescriptorValue).
//
// +kubebuilder:object:generate=true
type GenericKey struct {
	// DescriptorKey is the entry's key; empty means "generic_key", as in Envoy.
	// +optional
	DescriptorKey string `json:"descriptor_key,omitempty"`
	// DescriptorValue is the entry's value. It MUST NOT be empty.
	DescriptorValue string `json:"descriptor_value"`
}

// RequestHeaders appends (DescriptorKey, first value of the header HeaderName). When the
// header is absent the configuration yields no descriptor, unless SkipIfAbsent is set, in
// which case this action appends nothing and the descriptor is still built.
//
// +kubebuilder:object:generate=true
type RequestHeaders struct {
	// HeaderName is the header to read, compared case-insensitively. It MUST be a valid
	// header name; pseudo-headers (":path", ":method", ":authority") read the request line.
	HeaderName string `json:"header_name"`
	// DescriptorKey is the entry's key. It MUST NOT be empty.
	DescriptorKey string `json:"descriptor_key"`
	// SkipIfAbsent lets the descriptor be built without this entry when the header is absent.
	// +optional
	SkipIfAbsent bool `json:"skip_if_absent,omitempty"`
}

// RemoteAddress appends ("remote_address", client IP address without port). A request without
// an IP client address yields no descriptor for the configuration.
//
// +kubebuilder:object:generate=true
type RemoteAddress struct{}

// MetadataSource selects which metadata a MetadataAction reads.
type MetadataSource string

const (
	// MetadataDynamic reads the request's dynamic metadata (the default).
	MetadataDynamic MetadataSource = "DYNAMIC"
	// MetadataRouteEntry reads the metadata of the matched route.
	MetadataRouteEntry MetadataSource = "ROUTE_ENTRY"
)

// MetadataAction appends (DescriptorKey, the string at MetadataKey). Only a non-empty string
// value counts; anything else is absent. When absent, DefaultValue is used if set; otherwise
// the configuration yields no descriptor, unless SkipIfAbsent is set.
//
// +kubebuilder:object:generate=true
type MetadataAction struct {
	// DescriptorKey is the entry's key. It MUST NOT be empty.
	DescriptorKey string `json:"descriptor_key"`
	// MetadataKey locates the value.
	MetadataKey MetadataKey `json:"metadata_key"`
	// DefaultValue is used when the value is absent.
	// +optional
	DefaultValue string `json:"default_value,omitempty"`
	// Source is DYNAMIC (default) or ROUTE_ENTRY.
	// +optional
	Source MetadataSource `json:"source,omitempty"`
	// SkipIfAbsent lets the descriptor be built without this entry when the value is absent
	// and there is no DefaultValue.
	// +optional
	SkipIfAbsent bool `json:"skip_if_absent,omitempty"`
}

// HeaderValueMatch appends (DescriptorKey, DescriptorValue) when every matcher in Headers
// matches the request (or, with ExpectMatch false, when they do not all match); otherwise the
// configuration yields no descriptor.
//
// +kubebuilder:object:generate=true
type HeaderValueMatch struct {
	// DescriptorKey is the entry's key; empty means "header_match", as in Envoy.
	// +optional
	DescriptorKey string `json:"descriptor_key,omitempty"`
	// DescriptorValue is the entry's value. It MUST NOT be empty.
	DescriptorValue string `json:"descriptor_value"`
	// ExpectMatch is whether the headers must match (default true) or must not.
	// +optional
	ExpectMatch *bool `json:"expect_match,omitempty"`
	// Headers are ANDed. At least one is required.
	Headers []HeaderMatcher `json:"headers"`
}

// HeaderMatcher matches one request header, as Envoy's envoy.config.route.v3.HeaderMatcher.
// At most one match type may be set; none means "present". Repeated headers are matched
// against their values joined with ",". An absent header matches only a present_match of
// false (or an inverted present_match of true), whatever InvertMatch says otherwise, as in
// Envoy.
//
// +kubebuilder:object:generate=true
type HeaderMatcher struct {
	// Name is the header name, compared case-insensitively. It MUST NOT be empty.
	Name string `json:"name"`
	// ExactMatch matches the whole value; an empty ExactMatch matches any present value.
	// +optional
	ExactMatch *string `json:"exact_match,omitempty"`
	// PrefixMatch matches the start of the value.
	// +optional
	PrefixMatch *string `json:"prefix_match,omitempty"`
	// SuffixMatch matches the end of the value.
	// +optional
	SuffixMatch *string `json:"suffix_match,omitempty"`
	// ContainsMatch matches a substring of the value.
	// +optional
	ContainsMatch *string `json:"contains_match,omitempty"`
	// PresentMatch matches presence (true) or absence (false).
	// +optional
	PresentMatch *bool `json:"present_match,omitempty"`
	// SafeRegexMatch matches the whole value against an RE2 regular expression.
	// +optional
	SafeRegexMatch *RegexMatcher `json:"safe_regex_match,omitempty"`
	// InvertMatch inverts the result for a present header.
	// +optional
	InvertMatch bool `json:"invert_match,omitempty"`
}

// RegexMatcher is an RE2 regular expression that must match the whole value.
//
// +kubebuilder:object:generate=true
type RegexMatcher struct {
	// Regex is the expression, in RE2 syntax.
	Regex string `json:"regex"`
}

// RemoteAddressMatch appends (DescriptorKey, DescriptorValue) when the client IP address
// matches AddressMatcher; otherwise, or without a client IP, the configuration yields no
// descriptor. In DescriptorValue, "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" is replaced
// by the client IP address; other text is kept as written.
//
// +kubebuilder:object:generate=true
type RemoteAddressMatch struct {
	// DescriptorKey is the entry's key; empty means "remote_address_match", as in Envoy.
	// +optional
	DescriptorKey string `json:"descriptor_key,omitempty"`
	// DescriptorValue is the entry's value. It MUST NOT be empty.
	DescriptorValue string `json:"descriptor_value"`
	// AddressMatcher is the set of ranges.
	AddressMatcher AddressMatcher `json:"address_matcher"`
}

// AddressMatcher matches an IP address against CIDR ranges, as Envoy's
// envoy.type.matcher.v3.AddressMatcher.
//
// +kubebuilder:object:generate=true
type AddressMatcher struct {
	// Ranges are the CIDR ranges; an address matches when it is in any. At least one is
	// required.
	Ranges []CidrRange `json:"ranges"`
	// InvertMatch matches the addresses in no range.
	// +optional
	InvertMatch bool `json:"invert_match,omitempty"`
}

// CidrRange is an IP range: AddressPrefix/PrefixLen.
//
// +kubebuilder:object:generate=true
type CidrRange struct {
	// AddressPrefix is an IPv4 or IPv6 address.
	AddressPrefix string `json:"address_prefix"`
	// PrefixLen is the number of leading bits that must match: at most 32 for IPv4, 128
	// for IPv6.
	PrefixLen uint32 `json:"prefix_len"`
}

// QueryParameterValueMatch appends (DescriptorKey, DescriptorValue) when every matcher in
// QueryParameters matches the request's query (or, with ExpectMatch false, when they do
// not all match); otherwise the configuration yields no descriptor.
//
// +kubebuilder:object:generate=true
type QueryParameterValueMatch struct {
	// DescriptorKey is the entry's key; empty means "query_match", as in Envoy.
	// +optional
	DescriptorKey string `json:"descriptor_key,omitempty"`
	// DescriptorValue is the entry's value. It MUST NOT be empty.
	DescriptorValue string `json:"descriptor_value"`
	// ExpectMatch is whether the parameters must match (default true) or must not.
	// +optional
	ExpectMatch *bool `json:"expect_match,omitempty"`
	// QueryParameters are ANDed. At least one is required.
	QueryParameters []QueryParameterMatcher `json:"query_parameters"`
}

// QueryParameterMatcher matches one query parameter, as Envoy's
// envoy.config.route.v3.QueryParameterMatcher: its first value, percent-decoded. At most
// one match type may be set; none means "present". An absent parameter matches no
// matcher, and present_match, true or false, matches any value of a present one, as in
// Envoy.
//
// +kubebuilder:object:generate=true
type QueryParameterMatcher struct {
	// Name is the parameter's name, compared exactly. It MUST NOT be empty.
	Name string `json:"name"`
	// ExactMatch matches the whole value.
	// +optional
	ExactMatch *string `json:"exact_match,omitempty"`
	// PrefixMatch matches the start of the value.
	// +optional
	PrefixMatch *string `json:"prefix_match,omitempty"`
	// SuffixMatch matches the end of the value.
	// +optional
	SuffixMatch *string `json:"suffix_match,omitempty"`
	// ContainsMatch matches a substring of the value.
	// +optional
	ContainsMatch *string `json:"contains_match,omitempty"`
	// SafeRegexMatch matches the whole value against an RE2 regular expression.
	// +optional
	SafeRegexMatch *RegexMatcher `json:"safe_regex_match,omitempty"`
	// PresentMatch matches presence, whatever its value (as in Envoy).
	// +optional
	PresentMatch *bool `json:"present_match,omitempty"`
}

// QueryParameters appends (DescriptorKey, first value of the query parameter
// QueryParameterName, percent-decoded). When the parameter is absent the configuration
// yields no descriptor, unless SkipIfAbsent is set.
//
// +kubebuilder:object:generate=true
type QueryParameters struct {
	// QueryParameterName is the parameter to read, compared exactly. It MUST NOT be empty.
	QueryParameterName string `json:"query_parameter_name"`
	// DescriptorKey is the entry's key. It MUST NOT be empty.
	DescriptorKey string `json:"descriptor_key"`
	// SkipIfAbsent lets the descriptor be built without this entry when the parameter is
	// absent.
	// +optional
	SkipIfAbsent bool `json:"skip_if_absent,omitempty"`
}
