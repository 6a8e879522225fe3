package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/policyapi/apis"
)

const descriptorsSynopsis = `rlpkit descriptors (--config PLUGINCONFIG | --gateway ns/name PATH...) --url URL [flags]

Prints, as JSON, the RLS descriptors a rate-limit filter generates for the request:
{policy, domain, descriptors: [{entries: [{key, value}], limit, hits_addend}], hits_addend}.
policy is null when no policy matched (the rate-limit service would not be called).
With --explain, a readable trace of every decision goes to stderr.

--url is an absolute URL, or a path ("/admin/toy?id=1") when -H 'Host: ...' gives the
authority; a Host header replaces the URL's authority. --method is used as given: Envoy
matches :method exactly, so a method in lower case gets a warning. --remote-address is an IP
address, with or without a port (203.0.113.7, 203.0.113.7:5678, 2001:db8::1,
[2001:db8::1]:443); the port is dropped, as Envoy's remote_address action sends the
address alone. With --gateway, the warnings of compiling the topology go to stderr.

--gateway compiles the policies of every API the inputs hold (as rlpkit compile does) and
evaluates the request on that Gateway's data plane; an input holding several APIs prints
one section per API, {"<API name>": <its output>, ...}.

For kuadrant.io/v1 RateLimitPolicies, the Gateway's wasm-shim configuration is evaluated as
wasm-shim v0.14 does: the output has the same shape, for the first rate-limit call, plus
hostname (the most specific one matching the host), actionSet (null when none applies) and
calls (every service call, with the conditionalData blocks that applied); --explain traces
the action sets, actions and blocks.

For Envoy Gateway BackendTrafficPolicies, the request is evaluated as Envoy would: the
listener of the URL's port (80 for http, 443 for https; port 80, else the first listener's,
for a bare path), the virtual host and the route; the output has the same shape, for the
first rate-limit call, plus listener, virtualHost, route (httpRoute or grpcRoute, rule,
match, the policy and level its rate limits come from, directResponse 500 for an invalid
one), calls (every rate-limit filter's call), done (the calls when the response is done: response costs) and
local (the local rate limit's matched descriptors); --explain traces the route and every
rule.

gRPC: --grpc package.Service/Method sends the call as a proxy sees it, an HTTP/2 POST to
/package.Service/Method with content-type application/grpc and te trailers; --url gives
the authority alone (http://grpcbin.local) and --method is not used. kuadrant.io/v1 policies
on GRPCRoutes match it by path (request.url_path) and headers, and request.protocol is
"HTTP/2"; Envoy Gateway routes it by its GRPCRoute's method and header matches.`

// runDescriptors implements "rlpkit descriptors".
func runDescriptors(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("descriptors", descriptors(args, stdin, stdout, stderr), stderr)
}

func descriptors(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, paths, err := parseDescriptorsFlags(args, stdout)
	if err != nil {
		return err
	}
	if err := f.check(paths, stderr); err != nil {
		return err
	}
	req, err := f.request()
	if err != nil {
		return err
	}
	if f.config != "" {
		engine, err := loadPluginConfig(f.config)
		if err != nil {
			return err
		}
		return f.print(merge.DescribeWith(engine, req, f.explain))(stdout, stderr)
	}
	set, err := readInputs(paths, stdin, stderr)
	if err := checkName("--gateway", policy.KindGateway, f.gateway, set); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	kopts, err := f.kflags.options()
	if err != nil {
		return err
	}
	selected := apis.Select(set, apis.Options{Kuadrant: kopts})
	compiled, _, err := compileAPIs(set, selected, stderr)
	if err != nil {
		return err
	}
	if len(compiled) == 1 {
		gw, err := gatewayOf(compiled, f.gateway, set)
		if err != nil {
			return err
		}
		return f.print(gw.Describe(req, f.explain))(stdout, stderr)
	}
	sections := map[string]any{}
	var traces strings.Builder
	for _, c := range compiled {
		gw, err := gatewayOf([]compiledAPI{c}, f.gateway, set)
		if err != nil {
			return fmt.Errorf("%s: %w", c.api.Name(), err)
		}
		out, trace, err := gw.Describe(req, f.explain)
		if err != nil {
			return err
		}
		sections[c.api.Name()] = out
		if trace != "" {
			fmt.Fprintf(&traces, "%s:\n%s", c.api.Name(), trace)
		}
	}
	return f.print(sections, traces.String(), nil)(stdout, stderr)
}

// print returns the printing of what a data plane made of the request: out as JSON on
// stdout, the trace on stderr with --explain.
func (f *descriptorsFlags) print(out any, trace string, err error) func(stdout, stderr io.Writer) error {
	return func(stdout, stderr io.Writer) error {
		if err != nil {
			return err
		}
		if f.explain {
			fmt.Fprint(stderr, trace)
		}
		js, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", js)
		return err
	}
}

// request builds the request of the flags, in the contract's model.
func (f *descriptorsFlags) request() (*policyapi.Request, error) {
	req := &policyapi.Request{Method: f.method, Host: f.host, Path: f.path, Headers: f.headers, RemoteAddress: f.remote, HitsAddend: uint32(f.hits)}
	if u, err := url.Parse(f.rawURL); err == nil {
		req.Scheme = u.Scheme
	}
	if len(f.auth) > 0 {
		req.Auth = f.auth
	}
	if err := f.applyGRPC(req); err != nil {
		return nil, err
	}
	if f.metadataFile != "" {
		md, err := loadMetadata(f.metadataFile)
		if err != nil {
			return nil, err
		}
		req.Metadata = md
	}
	return req, nil
}

// descriptorsFlags are the flags of "rlpkit descriptors": the inputs and the request.
type descriptorsFlags struct {
	config, gateway, metadataFile string
	grpc                          string // --grpc: the gRPC method called
	method, rawURL, remote        string
	hits                          uint
	explain                       bool
	kflags                        *kuadrantFlags
	auth                          authFlag
	headers                       descriptor.HeaderMap
	// host is the authority -H 'Host: ...' gives; after check, the request's.
	host string
	// path is set by check: the path of --url, with its query.
	path string
}

// parseDescriptorsFlags parses the arguments of "rlpkit descriptors" into its flags and the
// PATH... of the topology.
func parseDescriptorsFlags(args []string, stdout io.Writer) (*descriptorsFlags, []string, error) {
	f := &descriptorsFlags{headers: descriptor.HeaderMap{}}
	fs := newFlagSet("descriptors")
	fs.StringVar(&f.config, "config", "", "the PluginConfig `file` (YAML or JSON, either schema)")
	fs.StringVar(&f.gateway, "gateway", "", "compile the topology in PATH... and use the PluginConfig of Gateway `ns/name`")
	fs.StringVar(&f.method, "method", "GET", "the request `method`")
	fs.StringVar(&f.rawURL, "url", "", "the request `URL`, e.g. http://api.toystore.com/admin/toy?id=1, or its path with -H 'Host: ...'")
	fs.StringVar(&f.remote, "remote-address", "", "the client `address`: an IP, optionally with a port, which the descriptor leaves out")
	fs.StringVar(&f.metadataFile, "metadata", "", "a JSON `file` of dynamic metadata: an object of namespace -> struct")
	fs.UintVar(&f.hits, "hits-addend", 0, "the request-level `cost` the proxy already knows (0: unset)")
	fs.BoolVar(&f.explain, "explain", false, "print a trace of every decision to stderr")
	f.kflags = addKuadrantFlags(fs)
	fs.StringVar(&f.grpc, "grpc", "", "send a gRPC call of `package.Service/Method` to the authority of --url (see gRPC above)")
	fs.Func("H", "a request header `'Name: value'` (repeatable; Host sets the authority)", f.addHeader)
	f.auth = authFlag{}
	fs.Func("auth", "an auth.* `attribute` as an AuthPolicy would give it, 'identity.userid=alice' (repeatable; kuadrant.io/v1 predicates and counters read them)", f.auth.set)
	paths, err := parseFlags(fs, args, descriptorsSynopsis, true, stdout)
	if err != nil {
		return nil, nil, err
	}
	return f, paths, nil
}

// addHeader reads one -H 'Name: value': a header of the request, or its authority for Host.
func (f *descriptorsFlags) addHeader(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want 'Name: value', got %q", s)
	}
	value = strings.TrimSpace(value)
	if strings.EqualFold(name, "host") {
		f.host = value
		return nil
	}
	lower := strings.ToLower(name)
	f.headers[lower] = append(f.headers[lower], value)
	return nil
}

// check checks the flags, with paths the PATH... given, and sets the request's path and
// authority from --url; a --method not in upper case gets a warning on stderr.
func (f *descriptorsFlags) check(paths []string, stderr io.Writer) error {
	switch {
	case (f.config == "") == (f.gateway == ""):
		return usagef("exactly one of --config and --gateway is required")
	case f.config != "" && len(paths) > 0:
		return usagef("unexpected argument %q: with --config, the PluginConfig is the only input", paths[0])
	case f.gateway != "" && len(paths) == 0:
		return usagef("--gateway needs the PATH... of the topology to compile")
	case f.rawURL == "":
		return usagef("--url is required")
	case f.hits > 1<<32-1:
		return usagef("--hits-addend %d is larger than 4294967295", f.hits)
	}
	path, authority, err := requestTarget(f.rawURL, f.host)
	if err != nil {
		return err
	}
	f.path = path
	if f.host == "" {
		f.host = authority
	}
	if f.remote != "" && !validRemoteAddress(f.remote) {
		return usagef("--remote-address %q: want an IP address, optionally with a port: 203.0.113.7, 203.0.113.7:5678, 2001:db8::1 or [2001:db8::1]:443", f.remote)
	}
	switch {
	case f.method == "":
		return usagef("--method is empty: want a method such as GET")
	case f.method != strings.ToUpper(f.method):
		fmt.Fprintf(stderr, "warning: --method %s: methods are case-sensitive and Envoy matches :method exactly, so rules for %s do not match it; using %s as given\n",
			f.method, strings.ToUpper(f.method), f.method)
	}
	return nil
}

// loadMetadata reads dynamic metadata: a JSON object of namespace -> struct.
func loadMetadata(file string) (descriptor.Metadata, error) {
	data, err := inputlimit.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if err := inputlimit.CheckJSON(file, data); err != nil {
		return nil, err
	}
	var md map[string]any
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of namespace -> struct: %v", file, err)
	}
	for ns, v := range md {
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("%s: namespace %q: want a struct (a JSON object), got %s", file, ns, jsonKind(v))
		}
	}
	return descriptor.Metadata(md), nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return "an object"
}

// requestTarget returns the path (with query) and the authority of --url. It may be a path
// when host, from -H 'Host: ...', gives the authority.
func requestTarget(raw, host string) (path, authority string, err error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", "", usagef("--url %q: %v", raw, errors.Unwrap(err))
	case u.Host != "":
		return u.RequestURI(), u.Host, nil
	case u.Scheme != "" || !strings.HasPrefix(raw, "/"):
		return "", "", usagef("--url %q: want an absolute URL such as http://%s, or a path starting with \"/\" and -H 'Host: ...'", raw, strings.TrimPrefix(raw, "//"))
	case host == "":
		return "", "", usagef("--url %q has no host: give an absolute URL such as http://api.example.com%s, or the authority with -H 'Host: api.example.com'", raw, raw)
	}
	return u.RequestURI(), "", nil
}

// validRemoteAddress reports whether s is an IP address, with or without a port, as Envoy's
// remote_address action sees the client address (it sends the IP alone).
func validRemoteAddress(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	_, err := netip.ParseAddrPort(s)
	return err == nil
}
