package descriptor

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/hostindex"
)

// Validate reports every problem of cfg at once, each with its field path, as a
// fielderr.List; nil when cfg is valid. Compile calls it.
func Validate(cfg *PluginConfig) error {
	var c errs
	validateTimeout(&c, cfg.Timeout)
	names := make(map[string]int)
	for i := range cfg.RateLimitPolicies {
		p := path("rateLimitPolicies").Index(i)
		pol := &cfg.RateLimitPolicies[i]
		if pol.Name != "" {
			if first, dup := names[pol.Name]; dup {
				c.add(string(p.Child("name")), "duplicate policy name "+quote(pol.Name)+" (also rateLimitPolicies["+strconv.Itoa(first)+"])")
			} else {
				names[pol.Name] = i
			}
		}
		validatePolicy(&c, p, pol)
	}
	return c.err()
}

func validatePolicy(c *errs, p path, pol *Policy) {
	if pol.RateLimitDomain == "" {
		c.add(string(p.Child("rateLimitDomain")), "required")
	}
	if pol.UpstreamCluster == "" {
		c.add(string(p.Child("upstreamCluster")), "required")
	}
	if len(pol.Hostnames) == 0 {
		c.add(string(p.Child("hostnames")), "at least one hostname is required")
	}
	seen := make(map[string]bool, len(pol.Hostnames))
	for i, h := range pol.Hostnames {
		hp := p.Child("hostnames").Index(i)
		if err := hostindex.ValidatePattern(h); err != nil {
			c.add(string(hp), trimPkg(err.Error()))
			continue
		}
		n := strings.ToLower(strings.TrimSuffix(h, "."))
		if seen[n] {
			c.add(string(hp), "duplicate hostname "+quote(h))
		}
		seen[n] = true
	}
	for i := range pol.RouteMatches {
		validateRouteMatch(c, p.Child("routeMatches").Index(i), &pol.RouteMatches[i])
	}
	validateGatewayActions(c, p.Child("gatewayActions"), pol.GatewayActions)
}

// ValidateGatewayActions validates gateway actions on their own, for APIs that embed them
// (a RateLimitPolicy's sections): it reports what Validate would, as a fielderr.List whose
// field paths start with prefix ("spec.default.gatewayActions"); nil when the actions are
// valid.
func ValidateGatewayActions(prefix string, actions []GatewayAction) error {
	var c errs
	validateGatewayActions(&c, path(prefix), actions)
	return c.err()
}

func validateGatewayActions(c *errs, p path, actions []GatewayAction) {
	for i := range actions {
		ga := &actions[i]
		gp := p.Index(i)
		for j := range ga.Rules {
			validateRule(c, gp.Child("rules").Index(j), &ga.Rules[j])
		}
		for j := range ga.Configurations {
			validateConfiguration(c, gp.Child("configurations").Index(j), &ga.Configurations[j])
		}
	}
}

func validateRule(c *errs, p path, r *Rule) {
	for i, v := range r.Paths {
		if msg := rulePathProblem(v); msg != "" {
			c.add(string(p.Child("paths").Index(i)), msg)
		}
	}
	for i, m := range r.Methods {
		if !isToken(m) {
			c.add(string(p.Child("methods").Index(i)), "invalid HTTP method "+quote(m)+": must be a token (letters, digits and !#$%&'*+-.^_`|~)")
		}
	}
	for i, h := range r.Hosts {
		if err := hostindex.ValidatePattern(h); err != nil {
			c.add(string(p.Child("hosts").Index(i)), trimPkg(err.Error()))
		}
	}
}

func rulePathProblem(v string) string {
	switch {
	case v == "":
		return "must not be empty"
	case v[0] != '/':
		return "invalid path " + quote(v) + `: must start with "/"`
	case strings.IndexByte(v[:len(v)-1], '*') >= 0:
		return "invalid path " + quote(v) + `: "*" is allowed only at the end`
	case strings.ContainsAny(v, "?#"):
		return "invalid path " + quote(v) + ": must not contain a query or fragment"
	}
	return ""
}

func validateConfiguration(c *errs, p path, cfg *Configuration) {
	if len(cfg.Actions) == 0 {
		c.add(string(p.Child("actions")), "at least one action is required")
	}
	for i := range cfg.Actions {
		validateAction(c, p.Child("actions").Index(i), &cfg.Actions[i])
	}
	if cfg.Limit != nil {
		lp := p.Child("limit")
		if cfg.Limit.DynamicMetadata == nil {
			c.add(string(lp), "dynamic_metadata is required")
		} else {
			validateMetadataKey(c, lp.Child("dynamic_metadata").Child("metadata_key"), &cfg.Limit.DynamicMetadata.MetadataKey)
		}
	}
	if h := cfg.HitsAddend; h != nil {
		hp := p.Child("hits_addend")
		set := 0
		for _, isSet := range []bool{h.Number != nil, h.DynamicMetadata != nil, h.ResponseBody != nil} {
			if isSet {
				set++
			}
		}
		switch {
		case set != 1:
			c.add(string(hp), "exactly one of number, dynamic_metadata and response_body must be set")
		case h.DynamicMetadata != nil:
			validateMetadataKey(c, hp.Child("dynamic_metadata").Child("metadata_key"), &h.DynamicMetadata.MetadataKey)
		case h.ResponseBody != nil:
			if err := checkJSONPointer(h.ResponseBody.JSONPointer); err != "" {
				c.add(string(hp.Child("response_body").Child("json_pointer")), err)
			}
		}
	}
}

func validateAction(c *errs, p path, a *Action) {
	set := 0
	for _, isSet := range []bool{a.GenericKey != nil, a.RequestHeaders != nil, a.RemoteAddress != nil, a.Metadata != nil, a.HeaderValueMatch != nil,
		a.RemoteAddressMatch != nil, a.QueryParameterValueMatch != nil, a.QueryParameters != nil} {
		if isSet {
			set++
		}
	}
	if set != 1 {
		c.add(string(p), "exactly one action type must be set (generic_key, request_headers, remote_address, metadata, header_value_match, remote_address_match, query_parameter_value_match, query_parameters)")
		return
	}
	validateQueryActions(c, p, a)
	switch {
	case a.GenericKey != nil:
		if a.GenericKey.DescriptorValue == "" {
			c.add(string(p.Child("generic_key").Child("descriptor_value")), "required")
		}
	case a.RequestHeaders != nil:
		rp := p.Child("request_headers")
		validateHeaderName(c, rp.Child("header_name"), a.RequestHeaders.HeaderName)
		if a.RequestHeaders.DescriptorKey == "" {
			c.add(string(rp.Child("descriptor_key")), "required")
		}
	case a.Metadata != nil:
		mp := p.Child("metadata")
		if a.Metadata.DescriptorKey == "" {
			c.add(string(mp.Child("descriptor_key")), "required")
		}
		validateMetadataKey(c, mp.Child("metadata_key"), &a.Metadata.MetadataKey)
		switch a.Metadata.Source {
		case "", MetadataDynamic, MetadataRouteEntry:
		default:
			c.add(string(mp.Child("source")), "unsupported value "+quote(string(a.Metadata.Source))+": must be DYNAMIC or ROUTE_ENTRY")
		}
	case a.HeaderValueMatch != nil:
		h := a.HeaderValueMatch
		validateValueMatch(c, p.Child("header_value_match"), h.DescriptorValue, "headers", "header", h.Headers, validateHeaderMatcher)
	}
}

// validateValueMatch validates a header_value_match or query_parameter_value_match at p: a
// descriptor value, and at least one matcher (of what) in the field list, each valid.
func validateValueMatch[M any](c *errs, p path, value, list, what string, matchers []M, validate func(*errs, path, *M)) {
	if value == "" {
		c.add(string(p.Child("descriptor_value")), "required")
	}
	if len(matchers) == 0 {
		c.add(string(p.Child(list)), "at least one "+what+" matcher is required")
	}
	for i := range matchers {
		validate(c, p.Child(list).Index(i), &matchers[i])
	}
}

// validateOneMatch reports a header or query parameter matcher at p with more than one of
// its match fields set (exact, prefix, suffix, contains, present, safe_regex).
func validateOneMatch(c *errs, p path, set ...bool) {
	n := 0
	for _, isSet := range set {
		if isSet {
			n++
		}
	}
	if n > 1 {
		c.add(string(p), "at most one of exact_match, prefix_match, suffix_match, contains_match, present_match and safe_regex_match may be set")
	}
}

func validateHeaderMatcher(c *errs, p path, h *HeaderMatcher) {
	validateHeaderName(c, p.Child("name"), h.Name)
	validateOneMatch(c, p, h.ExactMatch != nil, h.PrefixMatch != nil, h.SuffixMatch != nil, h.ContainsMatch != nil, h.PresentMatch != nil, h.SafeRegexMatch != nil)
	// Envoy requires a non-empty value for these three.
	for _, m := range []struct {
		name string
		v    *string
	}{{"prefix_match", h.PrefixMatch}, {"suffix_match", h.SuffixMatch}, {"contains_match", h.ContainsMatch}} {
		if m.v != nil && *m.v == "" {
			c.add(string(p.Child(m.name)), "must not be empty")
		}
	}
	if h.SafeRegexMatch != nil {
		validateRegex(c, p.Child("safe_regex_match").Child("regex"), h.SafeRegexMatch.Regex)
	}
}

func validateRouteMatch(c *errs, p path, m *RouteMatch) {
	if m.Path != nil {
		pp := p.Child("path")
		switch m.Path.Type {
		case "", PathMatchExact, PathMatchPathPrefix:
		default:
			c.add(string(pp.Child("type")), "unsupported value "+quote(string(m.Path.Type))+": must be Exact or PathPrefix")
		}
		if v := m.Path.Value; v != "" && v[0] != '/' {
			c.add(string(pp.Child("value")), "invalid path "+quote(v)+`: must start with "/"`)
		} else if strings.ContainsAny(v, "?#") {
			c.add(string(pp.Child("value")), "invalid path "+quote(v)+": must not contain a query or fragment")
		}
	}
	if m.Method != "" && !isToken(m.Method) {
		c.add(string(p.Child("method")), "invalid HTTP method "+quote(m.Method))
	}
	for i := range m.Headers {
		h := &m.Headers[i]
		hp := p.Child("headers").Index(i)
		validateHeaderName(c, hp.Child("name"), h.Name)
		switch h.Type {
		case "", HeaderMatchExact:
		case HeaderMatchRegularExpression:
			validateRegex(c, hp.Child("value"), h.Value)
		default:
			c.add(string(hp.Child("type")), "unsupported value "+quote(string(h.Type))+": must be Exact or RegularExpression")
		}
	}
}

func validateMetadataKey(c *errs, p path, k *MetadataKey) {
	if k.Key == "" {
		c.add(string(p.Child("key")), "required")
	}
	if len(k.Path) == 0 {
		c.add(string(p.Child("path")), "at least one path segment is required")
	}
	for i, s := range k.Path {
		if s.Key == "" {
			c.add(string(p.Child("path").Index(i).Child("key")), "required")
		}
	}
}

func validateHeaderName(c *errs, p path, name string) {
	switch {
	case name == "":
		c.add(string(p), "required")
	case !isToken(strings.TrimPrefix(name, ":")):
		c.add(string(p), "invalid header name "+quote(name))
	}
}

func validateRegex(c *errs, p path, expr string) {
	if _, err := regexp.Compile(`^(?:` + expr + `)$`); err != nil {
		c.add(string(p), "invalid regular expression "+quote(expr)+": "+err.Error())
	}
}

// isToken reports whether s is an RFC 9110 token, the syntax of methods and header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

func isTchar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

func quote(s string) string { return strconv.Quote(s) }

// trimPkg drops a "pkg: " prefix from a dependency's error, since the field path already says
// where the problem is.
func trimPkg(msg string) string {
	if _, rest, ok := strings.Cut(msg, ": "); ok && !strings.Contains(msg[:len(msg)-len(rest)-2], " ") {
		return rest
	}
	return msg
}
