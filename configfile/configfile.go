// Package configfile reads the one-document configuration files rlpkit takes besides a
// topology: a PluginConfig (descriptor's schema, YAML or JSON) and a limits file
// (limitador's format). It is the one loader of such files for the CLI (rlpkit descriptors
// --config, serve --limits, simulate --config/--limits) and for PolicyTests
// (spec.pluginConfig, spec.limits), so both report a problem the same way: every problem
// of the file, one a line, as "file:line: field: what is wrong", the line that of the
// field where it is known.
//
// The topology's files (Gateways, routes, policies, several documents each) are read by
// policy.Read; the low-level YAML decoding (line numbers, bounds) is package yamljson's.
package configfile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/yamljson"
)

// ReadDocument reads a file that holds one YAML or JSON document. The messages say what is
// wrong when the file holds several documents (tooMany, after "file:line: ") or none
// (empty, after "file: ").
func ReadDocument(file, tooMany, empty string) (*yamljson.Document, error) {
	data, err := inputlimit.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseDocument(file, data, tooMany, empty)
}

// ParseDocument is ReadDocument of data, read from file (a name for messages).
func ParseDocument(file string, data []byte, tooMany, empty string) (*yamljson.Document, error) {
	docs, err := yamljson.Convert(data)
	if err != nil {
		return nil, PrefixLines(file, err)
	}
	doc, second := yamljson.Only(docs)
	if second > 0 {
		return nil, fmt.Errorf("%s:%d: %s", file, second, tooMany)
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: %s", file, empty)
	}
	return doc, nil
}

// Locate reports a list of field errors found in doc, one a line, each prefixed with
// "file:line: " for the line of its field.
func Locate[E error](file string, doc *yamljson.Document, list []E, field func(E) string) error {
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = fmt.Sprintf("%s:%d: %s", file, doc.Line(field(e)), e.Error())
	}
	return errors.New(strings.Join(lines, "\n"))
}

// PrefixLines puts "file: " before every line of err.
func PrefixLines(file string, err error) error {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = file + ": " + l
	}
	return errors.New(strings.Join(lines, "\n"))
}

// located returns err, a field error list found in doc, located by Locate; any other error
// prefixed with "file: ".
func located(file string, doc *yamljson.Document, err error) error {
	var list fielderr.List
	if !errors.As(err, &list) {
		return fmt.Errorf("%s: %w", file, err)
	}
	return Locate(file, doc, list, func(e *fielderr.Error) string { return e.Field })
}

// PluginConfig reads a PluginConfig file (YAML or JSON, either schema) and compiles it.
func PluginConfig(file string) (*descriptor.Engine, error) {
	doc, err := ReadDocument(file, "a PluginConfig file holds one document", "no PluginConfig in the file")
	if err != nil {
		return nil, err
	}
	cfg, err := descriptor.Decode(doc.JSON)
	if err == nil {
		var engine *descriptor.Engine
		if engine, err = descriptor.Compile(cfg); err == nil {
			return engine, nil
		}
	}
	return nil, located(file, doc, err)
}

// Limits reads a limits file in limitador's format, YAML or JSON: one document holding a
// list of limits. The warnings are of limits that can never match, "file:line: limit:
// [i].field: why", one a line.
func Limits(file string) ([]limitador.Limit, []string, error) {
	data, err := inputlimit.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	return LimitsData(file, data)
}

// LimitsData is Limits of data, read from file (a name for messages).
func LimitsData(file string, data []byte) ([]limitador.Limit, []string, error) {
	doc, err := ParseDocument(file, data, "a limits file holds one document, a list of limits", "no limits in the file; write [] for none")
	if err != nil {
		return nil, nil, err
	}
	limits, err := limitador.DecodeLimits(doc.JSON)
	if err != nil {
		return nil, nil, located(file, doc, err)
	}
	var warnings []string
	for _, w := range limitador.LimitWarnings(limits) {
		warnings = append(warnings, fmt.Sprintf("%s:%d: limit: %s", file, doc.Line(w.Path), w))
	}
	return limits, warnings, nil
}
