package policytest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	sigsjson "sigs.k8s.io/json"

	"github.com/rlpkit/rlpkit/internal/jsonerr"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/yamljson"
)

// DefaultStart is the simulated instant a case starts at when the test names none: windows
// of a minute, an hour and a day begin there.
var DefaultStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Test is a decoded, valid PolicyTest and where it was read.
type Test struct {
	PolicyTest
	// File is the test file.
	File string
	// Doc is the document's 0-based index in the file.
	Doc int
	// Line is the line the document starts on.
	Line int

	start time.Time
	doc   *yamljson.Document
}

// Decode reads the PolicyTests of one file: a stream of YAML or JSON documents. Documents of
// other kinds (the Gateways and policies a test may sit beside) are skipped. Decoding is
// strict: unknown and duplicate fields, values of the wrong type and invalid values are
// problems, all reported at once as a policy.Errors: each a *policy.Error with the file and
// line, Object "PolicyTest NAME" (empty when the document has no name) and the field path,
// printed as
//
//	toystore.test.yaml:14: PolicyTest toystore: spec.cases[0].steps[1].want: Unsupported value: "ok": want OK or OVER_LIMIT
func Decode(file string, data []byte) ([]*Test, error) {
	docs, err := yamljson.Convert(data)
	if err != nil {
		var errs policy.Errors
		for _, e := range unwrapAll(err) {
			pe := &policy.Error{Source: policy.Source{File: file}, Detail: "YAML: " + e.Error()}
			var ye *yamljson.Error
			if errors.As(e, &ye) {
				pe.Line, pe.Detail = ye.Line, "YAML: "+ye.Msg
			}
			errs = append(errs, pe)
		}
		return nil, errs
	}
	var tests []*Test
	var errs policy.Errors
	for i := range docs {
		d := &docs[i]
		if d.Empty() {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(d.JSON, &head) != nil || head.Kind != Kind {
			continue
		}
		t, problems := decodeDocument(file, d, head.Metadata.Name)
		errs = append(errs, problems...)
		if t != nil {
			tests = append(tests, t)
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *policy.Error) int { return cmp.Compare(a.Line, b.Line) })
		return nil, errs
	}
	return tests, nil
}

func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// decodeDocument decodes and validates one PolicyTest document.
func decodeDocument(file string, d *yamljson.Document, name string) (*Test, policy.Errors) {
	t := &Test{File: file, Doc: d.Index, Line: d.StartLine, doc: d}
	var object string
	if name != "" {
		object = Kind + " " + name
	}
	var errs policy.Errors
	fail := func(path, detail string) {
		errs = append(errs, &policy.Error{Source: policy.Source{File: file, Doc: d.Index, Line: d.Line(path)}, Object: object, Field: path, Detail: detail})
	}
	strict, err := sigsjson.UnmarshalStrict(d.JSON, &t.PolicyTest)
	if err != nil {
		path, detail := jsonerr.Describe(err)
		fail(path, detail)
		return nil, errs
	}
	for _, e := range strict {
		fail(jsonerr.Strict(e))
	}
	t.validate(fail)
	if len(errs) > 0 {
		return nil, errs
	}
	return t, nil
}

// validate reports every invalid value through fail(path, detail).
func (t *Test) validate(fail func(path, detail string)) {
	if t.APIVersion != APIVersion {
		fail("apiVersion", fmt.Sprintf("Unsupported value: %q: a PolicyTest is %s", t.APIVersion, APIVersion))
	}
	if t.Metadata.Name == "" {
		fail("metadata.name", "Required value")
	}
	s := &t.Spec
	envoy := len(s.Envoy) > 0 || s.Domain != ""
	topology, files := len(s.Inputs) > 0 || s.Gateway != "" && !envoy, s.PluginConfig != "" || s.Limits != ""
	switch {
	case btoi(topology)+btoi(files)+btoi(envoy) > 1:
		fail("spec", "Invalid value: name one of: inputs and gateway; pluginConfig and limits; envoy")
	case topology:
		requirePaths("spec.inputs", s.Inputs, "the files and directories to compile, relative to the test", fail)
		validateGateway(s.Gateway, fail)
	case files:
		if s.PluginConfig == "" {
			fail("spec.pluginConfig", "Required value: the PluginConfig file to test with the limits")
		}
		if s.Limits == "" {
			fail("spec.limits", "Required value: the limits file to test with the PluginConfig")
		}
	case envoy:
		requirePaths("spec.envoy", s.Envoy, "the Envoy route configuration and envoyproxy/ratelimit files, relative to the test", fail)
		if s.Gateway != "" {
			validateGateway(s.Gateway, fail)
		}
	default:
		fail("spec", "Required value: name inputs and gateway, pluginConfig and limits, or envoy")
	}
	t.start = DefaultStart
	if s.Start != "" {
		start, err := time.Parse(time.RFC3339, s.Start)
		if err != nil {
			fail("spec.start", fmt.Sprintf("Invalid value: %q: want an RFC 3339 time such as 2024-01-01T00:00:00Z", s.Start))
		}
		t.start = start
	}
	if len(s.Cases) == 0 {
		fail("spec.cases", "Required value: at least one case")
	}
	seen := map[string]int{}
	for i := range s.Cases {
		c := &s.Cases[i]
		path := fmt.Sprintf("spec.cases[%d]", i)
		switch {
		case c.Name == "":
			fail(path+".name", "Required value")
		case strings.ContainsAny(c.Name, "/ \t\n"):
			fail(path+".name", fmt.Sprintf("Invalid value: %q: must not contain spaces or \"/\"", c.Name))
		}
		if j, dup := seen[c.Name]; dup && c.Name != "" {
			fail(path+".name", fmt.Sprintf("Duplicate value: %q is also spec.cases[%d]", c.Name, j))
		}
		seen[c.Name] = i
		validateRequest(&c.Request, path+".request", fail)
		if c.Descriptors == nil && len(c.Steps) == 0 {
			fail(path, "Required value: expect descriptors, steps, or both")
		}
		for j := range c.Steps {
			validateStep(&c.Steps[j], fmt.Sprintf("%s.steps[%d]", path, j), fail)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func validateGateway(gw string, fail func(path, detail string)) {
	if ns, name, ok := strings.Cut(gw, "/"); !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		fail("spec.gateway", fmt.Sprintf("Invalid value: %q: want namespace/name of a Gateway among the inputs", gw))
	}
}

// methodRE is an HTTP method token.
var methodRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func validateRequest(r *Request, path string, fail func(path, detail string)) {
	if r.Method != "" && !methodRE.MatchString(r.Method) {
		fail(path+".method", fmt.Sprintf("Invalid value: %q: must be an HTTP method", r.Method))
	}
	if r.URL == "" {
		fail(path+".url", "Required value: an absolute URL such as http://api.example.com/path")
	} else if u, err := url.Parse(r.URL); err != nil || u.Host == "" {
		fail(path+".url", fmt.Sprintf("Invalid value: %q: want an absolute URL such as http://api.example.com/path", r.URL))
	}
	for name := range r.Headers {
		if !methodRE.MatchString(name) {
			fail(path+".headers", fmt.Sprintf("Invalid value: %q: must be a header name", name))
		}
	}
	validateAttributes(r.Attributes, path+".attributes", fail)
}

// validateAttributes checks that every name of attrs is an auth.* attribute.
func validateAttributes(attrs map[string]any, path string, fail func(path, detail string)) {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		rest, ok := strings.CutPrefix(name, "auth.")
		if !ok || rest == "" || slices.Contains(strings.Split(rest, "."), "") {
			fail(path, fmt.Sprintf("Invalid value: %q: want an auth.* attribute such as auth.identity.userid (request.*, source.* come from method, url, headers and remoteAddress)", name))
		}
	}
}

func validateStep(s *Step, path string, fail func(path, detail string)) {
	if _, _, err := parseAt(s.At); err != nil {
		fail(path+".at", fmt.Sprintf("Invalid value: %q: %v", s.At, err))
	}
	if s.Repeat < 0 {
		fail(path+".repeat", fmt.Sprintf("Invalid value: %d: must be at least 1", s.Repeat))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		if !methodRE.MatchString(name) {
			fail(path+".headers", fmt.Sprintf("Invalid value: %q: must be a header name", name))
		}
	}
	validateAttributes(s.Attributes, path+".attributes", fail)
	validateStatus(&Status{Want: s.Want, Limit: s.Limit, Remaining: s.Remaining, Reset: s.Reset}, path, fail)
	for i := range s.Statuses {
		validateStatus(&s.Statuses[i], fmt.Sprintf("%s.statuses[%d]", path, i), fail)
	}
	if u := s.Usage; u != nil {
		switch {
		case (u.Tokens == nil) == (u.Body == ""):
			fail(path+".usage", "Invalid value: want exactly one of tokens and body")
		case u.Body != "" && !json.Valid([]byte(u.Body)):
			fail(path+".usage.body", "Invalid value: not JSON")
		}
		if u.Status != 0 && (u.Status < 100 || u.Status > 599) {
			fail(path+".usage.status", fmt.Sprintf("Invalid value: %d: want an HTTP status, 100 to 599", u.Status))
		}
	}
}

func validateStatus(s *Status, path string, fail func(path, detail string)) {
	switch s.Want {
	case "OK", "OVER_LIMIT":
	case "":
		fail(path+".want", "Required value: OK or OVER_LIMIT")
	default:
		fail(path+".want", fmt.Sprintf("Unsupported value: %q: want OK or OVER_LIMIT", s.Want))
	}
	if s.Reset != nil {
		if d, err := time.ParseDuration(*s.Reset); err != nil || d < 0 {
			fail(path+".reset", fmt.Sprintf("Invalid value: %q: want a duration such as 60s", *s.Reset))
		}
	}
}

// parseAt reads a step's at: "+D" is relative to the previous step, "D" to the start.
func parseAt(at string) (d time.Duration, relative bool, err error) {
	if at == "" {
		return 0, true, nil
	}
	rest, relative := strings.CutPrefix(at, "+")
	d, err = time.ParseDuration(rest)
	if err != nil || d < 0 || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
		return 0, false, errors.New(`want "+10s" (after the previous step) or "90s" (after the start)`)
	}
	return d, relative, nil
}

// requirePaths fails field when paths is empty (what says what it names) and each of its
// paths that is empty.
func requirePaths(field string, paths []string, what string, fail func(field, detail string)) {
	if len(paths) == 0 {
		fail(field, "Required value: "+what)
	}
	for i, p := range paths {
		if p == "" {
			fail(fmt.Sprintf("%s[%d]", field, i), "Required value")
		}
	}
}
