package envoyxds

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/hostindex"
)

// vocabulary is what probe requests are made of: the hosts, paths, methods, headers and
// metadata a configuration mentions, with near misses around each.
type vocabulary struct {
	hosts, paths, methods, remotes []string
	headers                        map[string][]string // name -> candidate values
	singleValued                   map[string]bool     // headers route matches read: never repeated
	dynamic, route                 [][]string          // metadata paths (namespace first) of metadata actions
	limits, costs                  [][]string          // metadata paths of limit overrides and costs
}

func addUnique(list []string, vs ...string) []string {
	for _, v := range vs {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// newVocabulary collects the vocabulary of cfg.
func newVocabulary(cfg *descriptor.PluginConfig) *vocabulary {
	v := &vocabulary{
		hosts:        []string{"unmatched.invalid", "[::1]:8080", "10.1.2.3"},
		paths:        []string{"/", "/other"},
		methods:      []string{"GET", "POST", "DELETE", "get"},
		remotes:      []string{"", "192.0.2.1:5678", "[2001:db8::1]:443", "198.51.100.2", "not-an-ip"},
		headers:      make(map[string][]string),
		singleValued: make(map[string]bool),
	}
	header := func(name string, values ...string) {
		name = strings.ToLower(name)
		if strings.HasPrefix(name, ":") || name == "host" {
			return // the request line, or :authority: Envoy has no "host" header
		}
		v.headers[name] = addUnique(v.headers[name], append([]string{"", "other", "1234", "v12", "true"}, values...)...)
	}
	metaPath := func(k descriptor.MetadataKey) []string {
		p := []string{k.Key}
		for _, s := range k.Path {
			p = append(p, s.Key)
		}
		return p
	}
	for _, pol := range cfg.RateLimitPolicies {
		for _, h := range pol.Hostnames {
			v.hostVariants(h)
		}
		for _, m := range pol.RouteMatches {
			if m.Path != nil {
				p := m.Path.Value
				if p == "" {
					p = "/"
				}
				trimmed := strings.TrimRight(p, "/")
				v.paths = addUnique(v.paths, p, p+"/", p+"/sub", p+"x", p+"?a=1", trimmed, trimmed+"/x")
			}
			if m.Method != "" {
				v.methods = addUnique(v.methods, m.Method)
			}
			for _, h := range m.Headers {
				header(h.Name, h.Value)
				v.singleValued[strings.ToLower(h.Name)] = true
			}
		}
		for _, ga := range pol.GatewayActions {
			for _, r := range ga.Rules {
				for _, h := range r.Hosts {
					v.hostVariants(h)
				}
				for _, p := range r.Paths {
					if pre, ok := strings.CutSuffix(p, "*"); ok {
						v.paths = addUnique(v.paths, pre, pre+"x", pre+"x/y?z", pre[:max(1, len(pre)-1)])
					} else {
						v.paths = addUnique(v.paths, p, p+"?q=1", p+"/", p+"x", p[:max(1, len(p)-1)])
					}
				}
				v.methods = addUnique(v.methods, r.Methods...)
			}
			for _, c := range ga.Configurations {
				if c.Limit != nil && c.Limit.DynamicMetadata != nil {
					v.limits = append(v.limits, metaPath(c.Limit.DynamicMetadata.MetadataKey))
				}
				if c.HitsAddend != nil && c.HitsAddend.DynamicMetadata != nil {
					v.costs = append(v.costs, metaPath(c.HitsAddend.DynamicMetadata.MetadataKey))
				}
				for _, a := range c.Actions {
					switch {
					case a.RequestHeaders != nil:
						header(a.RequestHeaders.HeaderName)
					case a.Metadata != nil && a.Metadata.Source == descriptor.MetadataRouteEntry:
						v.route = append(v.route, metaPath(a.Metadata.MetadataKey))
					case a.Metadata != nil:
						v.dynamic = append(v.dynamic, metaPath(a.Metadata.MetadataKey))
					case a.HeaderValueMatch != nil:
						for _, m := range a.HeaderValueMatch.Headers {
							var vals []string
							for _, s := range []*string{m.ExactMatch, m.PrefixMatch, m.SuffixMatch, m.ContainsMatch} {
								if s != nil {
									vals = append(vals, *s, *s+"x", "x"+*s, "a"+*s+"b")
								}
							}
							header(m.Name, vals...)
						}
					}
				}
			}
		}
	}
	// Requests Envoy routes have a path starting with "/" (see the package documentation).
	v.paths = slices.DeleteFunc(v.paths, func(p string) bool { return !strings.HasPrefix(p, "/") })
	return v
}

// hostVariants adds hosts around a hostname pattern: matches in other cases, with ports and
// trailing dots, and near misses.
func (v *vocabulary) hostVariants(pattern string) {
	p := hostindex.Normalize(pattern)
	switch {
	case p == "*":
		v.hosts = addUnique(v.hosts, "anything.example", "localhost")
	case strings.HasPrefix(p, "*."):
		s := p[1:]
		v.hosts = addUnique(v.hosts, "x"+s, "a.b"+s, s[1:], "X"+strings.ToUpper(s)+".:8443")
	default:
		v.hosts = addUnique(v.hosts, p, strings.ToUpper(p), p+":8080", p+".", p+".:443", "sub."+p)
	}
}

// setPath stores value at path (namespace first) in metadata, making structs on the way.
func setPath(md map[string]any, path []string, value any) {
	cur := md
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = make(map[string]any)
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = value
}

// probe returns one request drawn from the vocabulary. It keeps to the inputs on which
// Envoy and descriptor agree by design (see the package documentation): a cost in metadata
// is always a valid one, and a header a route match reads is never repeated.
func (v *vocabulary) probe(rng *rand.Rand) testRequest {
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	req := testRequest{Method: pick(v.methods), Host: pick(v.hosts), Path: pick(v.paths), RemoteAddress: pick(v.remotes)}
	names := make([]string, 0, len(v.headers))
	for name := range v.headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		switch rng.IntN(4) {
		case 0, 1:
		case 2:
			req.addHeader(name, pick(v.headers[name]))
		case 3:
			req.addHeader(name, pick(v.headers[name]))
			if !v.singleValued[name] {
				req.addHeader(name, pick(v.headers[name]))
			}
		}
	}
	strs := []any{nil, "v1", "", 42.0, map[string]any{"x": "y"}}
	limits := []any{nil, map[string]any{"requests_per_unit": 10.0, "unit": "MINUTE"},
		map[string]any{"requests_per_unit": 2.5, "unit": "HOUR"}, "100/s",
		map[string]any{"requests_per_unit": 3.0, "unit": "FORTNIGHT"}, map[string]any{"requests_per_unit": "3", "unit": "SECOND"}}
	costs := []any{3.0, "12", 0.0, 1e9}
	fill := func(md map[string]any, paths [][]string, choices []any) {
		for _, p := range paths {
			if c := choices[rng.IntN(len(choices))]; c != nil {
				setPath(md, p, c)
			}
		}
	}
	dyn, route := make(map[string]any), make(map[string]any)
	fill(dyn, v.dynamic, strs)
	fill(dyn, v.limits, limits)
	fill(dyn, v.costs, costs) // last: nothing overwrites a cost
	fill(route, v.route, strs)
	if len(dyn) > 0 {
		req.DynamicMetadata = dyn
	}
	if len(route) > 0 {
		req.RouteMetadata = route
	}
	if rng.IntN(4) == 0 {
		req.HitsAddend = 7
	}
	return req
}

func (r *testRequest) addHeader(name, value string) {
	if r.Headers == nil {
		r.Headers = make(map[string][]string)
	}
	r.Headers[name] = append(r.Headers[name], value)
}

// TestProbesEquivalent draws requests from the vocabulary of every configuration of this
// package's and descriptor's golden cases, and checks that Envoy sends what descriptor
// generates for each.
func TestProbesEquivalent(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "descriptor", "testdata", "generate", "*", "config.yaml"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no configurations")
	}
	const perConfig = 1000
	for i, file := range files {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			cfg := loadConfig(t, file)
			c := newChecker(t, cfg)
			v := newVocabulary(cfg)
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for range perConfig {
				req := v.probe(rng)
				c.check(t, &req)
				if t.Failed() {
					t.FailNow() // the first difference says enough
				}
			}
		})
	}
}
