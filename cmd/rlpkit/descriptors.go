package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/merge"
)

const descriptorsSynopsis = `rlpkit descriptors (--config PLUGINCONFIG | --gateway ns/name PATH...) --url URL [flags]

Prints, as JSON, the RLS descriptors a rate-limit filter generates for the request:
{policy, domain, descriptors: [{entries: [{key, value}], limit, hits_addend}], hits_addend}.
policy is null when no policy matched (the rate-limit service would not be called).
With --explain, a readable trace of every decision goes to stderr.`

// runDescriptors implements "rlpkit descriptors".
func runDescriptors(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("descriptors", descriptors(args, stdin, stdout, stderr), stderr)
}

func descriptors(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("descriptors")
	config := fs.String("config", "", "the PluginConfig `file` (YAML or JSON, either schema)")
	gateway := fs.String("gateway", "", "compile the topology in PATH... and use the PluginConfig of Gateway `ns/name`")
	method := fs.String("method", "GET", "the request `method`")
	rawURL := fs.String("url", "", "the request `URL`, e.g. http://api.toystore.com/admin/toy?id=1")
	remote := fs.String("remote-address", "", "the client `address` (IP, optionally with port)")
	metadataFile := fs.String("metadata", "", "a JSON `file` of dynamic metadata: an object of namespace -> struct")
	hits := fs.Uint("hits-addend", 0, "the request-level `cost` the proxy already knows (0: unset)")
	explain := fs.Bool("explain", false, "print a trace of every decision to stderr")
	headers := descriptor.HeaderMap{}
	var host string
	fs.Func("H", "a request header `'Name: value'` (repeatable; Host sets the authority)", func(s string) error {
		name, value, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("want 'Name: value', got %q", s)
		}
		value = strings.TrimSpace(value)
		if strings.EqualFold(name, "host") {
			host = value
			return nil
		}
		lower := strings.ToLower(name)
		headers[lower] = append(headers[lower], value)
		return nil
	})
	paths, err := parseFlags(fs, args, descriptorsSynopsis, true, stdout)
	if err != nil {
		return err
	}
	switch {
	case (*config == "") == (*gateway == ""):
		return usagef("exactly one of --config and --gateway is required")
	case *config != "" && len(paths) > 0:
		return usagef("unexpected argument %q: with --config, the PluginConfig is the only input", paths[0])
	case *gateway != "" && len(paths) == 0:
		return usagef("--gateway needs the PATH... of the topology to compile")
	case *rawURL == "":
		return usagef("--url is required")
	case *hits > 1<<32-1:
		return usagef("--hits-addend %d is larger than 4294967295", *hits)
	}
	u, err := url.Parse(*rawURL)
	if err != nil || u.Host == "" {
		return usagef("--url %q: want an absolute URL such as http://example.com/path", *rawURL)
	}
	if host == "" {
		host = u.Host
	}

	var engine *descriptor.Engine
	if *config != "" {
		engine, err = loadPluginConfig(*config)
	} else {
		engine, err = gatewayEngine(paths, stdin, stderr, *gateway)
	}
	if err != nil {
		return err
	}
	req := &descriptor.Request{
		Method:        *method,
		Host:          host,
		Path:          u.RequestURI(),
		Headers:       headers,
		RemoteAddress: *remote,
		HitsAddend:    uint32(*hits),
	}
	if *metadataFile != "" {
		md, err := loadMetadata(*metadataFile)
		if err != nil {
			return err
		}
		req.DynamicMetadata = md
	}

	res, trace := engine.Explain(req)
	if *explain {
		fmt.Fprint(stderr, trace)
	}
	out, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// loadMetadata reads dynamic metadata: a JSON object of namespace -> struct.
func loadMetadata(file string) (descriptor.Metadata, error) {
	data, err := os.ReadFile(file)
	if err != nil {
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

// gatewayEngine compiles the topology in paths and returns the descriptor engine of the
// PluginConfig compiled for the Gateway ns/name.
func gatewayEngine(paths []string, stdin io.Reader, stderr io.Writer, gateway string) (*descriptor.Engine, error) {
	res, err := compileTopology(paths, stdin, stderr, merge.Options{})
	if err != nil {
		return nil, err
	}
	for _, gw := range res.Gateways {
		if gw.Gateway == gateway {
			return descriptor.Compile(&gw.PluginConfig)
		}
	}
	return nil, fmt.Errorf("--gateway %s: no such Gateway among the inputs", gateway)
}
