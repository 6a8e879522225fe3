package policytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/configfile"
	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/yamljson"
)

// EnvoyOptions configures LoadEnvoy.
type EnvoyOptions struct {
	// Gateway picks the Gateway ("namespace/name") of "rlpkit compile -o envoy" output that
	// holds several.
	Gateway string
	// Domain is the domain of the rate-limit filter when the route configuration names no
	// rate-limit HTTP filter; default: the only domain of the envoyproxy/ratelimit
	// configuration.
	Domain string
}

// LoadEnvoy reads an Envoy route configuration and envoyproxy/ratelimit configuration
// files from the files and directories in paths (every *.yaml, *.yml and *.json under a
// directory) and returns their target: requests go through package envoyroute's
// evaluation of the route configuration (RouteFrontend), decisions through package
// limit/envoyratelimit's evaluator of the configuration (RateLimitTarget). Each file is
// recognised by its first document's keys: virtual_hosts (a RouteConfiguration),
// route_configuration (with http_filters), or gateways whose items hold envoy ("rlpkit
// compile -o envoy" output) make the route configuration, of which there must be exactly
// one; domain makes an envoyproxy/ratelimit configuration file, of which there must be at
// least one. PolicyTests are skipped; any other document is an error, as is a route
// configuration none of whose domains the ratelimit configuration has.
func LoadEnvoy(paths []string, o EnvoyOptions) (*Target, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	var routeFile string
	var routeDoc *yamljson.Document
	var routeData []byte
	var rlFiles []envoyratelimit.File
	var problems []string
	for _, f := range files {
		doc, data, err := firstDocument(f)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		switch kind := envoyKind(doc); {
		case kind == "skip":
		case kind == "route" && routeDoc != nil:
			problems = append(problems, fmt.Sprintf("%s:%d: a second Envoy route configuration (the first is %s): test one at a time", f, doc.StartLine, routeFile))
		case kind == "route":
			routeFile, routeDoc, routeData = f, doc, data
		case kind == "ratelimit":
			rlFiles = append(rlFiles, envoyratelimit.File{Key: strings.ReplaceAll(filepath.ToSlash(f), "/", "."), Data: data})
		default:
			problems = append(problems, fmt.Sprintf("%s:%d: neither an Envoy route configuration (virtual_hosts, route_configuration, or the gateways of rlpkit compile -o envoy) nor an envoyproxy/ratelimit configuration (domain, descriptors)", f, doc.StartLine))
		}
	}
	if routeDoc == nil {
		problems = append(problems, fmt.Sprintf("no Envoy route configuration under %s", strings.Join(paths, " ")))
	}
	if len(rlFiles) == 0 {
		problems = append(problems, fmt.Sprintf("no envoyproxy/ratelimit configuration (a file with domain and descriptors) under %s", strings.Join(paths, " ")))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	cfg, err := envoyratelimit.Load(rlFiles, envoyratelimit.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return envoyTarget(routeFile, routeDoc, routeData, cfg, o)
}

// envoyTarget decodes the route configuration (doc, of file holding data) and pairs it
// with cfg.
func envoyTarget(file string, doc *yamljson.Document, data []byte, cfg *envoyratelimit.Config, o EnvoyOptions) (*Target, error) {
	domains := cfg.Domains()
	if o.Domain == "" && len(domains) == 1 {
		o.Domain = domains[0].Name
	}
	rc, err := envoyroute.Decode(doc.JSON, envoyroute.Options{Domain: o.Domain, Gateway: o.Gateway})
	if err != nil {
		var list fielderr.List
		if errors.Is(err, envoyroute.ErrNoDomain) {
			return nil, fmt.Errorf("%s: %w (spec.domain in a PolicyTest, --domain for rlpkit simulate); the envoyproxy/ratelimit files have %d domains", file, err, len(domains))
		}
		if errors.As(err, &list) {
			return nil, configfile.Locate(file, doc, list, func(e *fielderr.Error) string { return e.Field })
		}
		return nil, protoError(file, data, err)
	}
	sent := rc.Domains()
	if !slices.ContainsFunc(sent, func(d string) bool { return cfg.Domain(d) != nil }) {
		var have []string
		for _, d := range domains {
			have = append(have, d.Name)
		}
		return nil, fmt.Errorf("%s: the route configuration sends domain %s, which the envoyproxy/ratelimit configuration (domains %s) does not have: every request would be admitted", file, strings.Join(sent, ", "), strings.Join(have, ", "))
	}
	return RateLimitTarget(RouteFrontend(rc), cfg), nil
}

// firstDocument reads a file's first non-empty document, and the file's bytes.
func firstDocument(file string) (*yamljson.Document, []byte, error) {
	data, err := inputlimit.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	docs, err := yamljson.Convert(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	for i := range docs {
		if !docs[i].Empty() {
			return &docs[i], data, nil
		}
	}
	return &yamljson.Document{StartLine: 1, JSON: []byte("null")}, data, nil
}

// envoyKind recognises a document: "route", "ratelimit", "skip" (a PolicyTest), or "".
func envoyKind(doc *yamljson.Document) string {
	if envoyroute.Shape(doc.JSON) != "" {
		return "route"
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(doc.JSON, &top) != nil {
		return ""
	}
	var kind string
	_ = json.Unmarshal(top["kind"], &kind)
	switch {
	case kind == Kind:
		return "skip"
	case top["domain"] != nil && top["kind"] == nil:
		return "ratelimit"
	}
	return ""
}

// protoPosition is where protojson says a problem is: in the compact JSON rlpkit made of
// the YAML, which means nothing to the reader.
var protoPosition = regexp.MustCompile(`\(line \d+:\d+\): `)

// unknownField is protojson's message for a field the message does not have.
var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// protoError reports a decoding error of a route configuration file: without protojson's
// position, at the first line of data naming the unknown field when that is the problem.
func protoError(file string, data []byte, err error) error {
	msg := protoPosition.ReplaceAllString(err.Error(), "")
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		key := regexp.MustCompile(`(^|[\s{,"'])` + regexp.QuoteMeta(m[1]) + `["']?\s*:`)
		for i, line := range strings.Split(string(data), "\n") {
			if key.MatchString(line) {
				return fmt.Errorf("%s:%d: %s", file, i+1, msg)
			}
		}
	}
	return fmt.Errorf("%s: %s", file, msg)
}
