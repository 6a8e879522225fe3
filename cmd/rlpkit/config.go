package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/yamljson"
)

// loadPluginConfig reads a PluginConfig file (YAML or JSON, either schema) and compiles it.
// Every problem is reported as "file:line: field: detail", one per line.
func loadPluginConfig(file string) (*descriptor.Engine, error) {
	if err := checkContent(file, policy.ContentPluginConfig, "--config takes a PluginConfig (rlpkit compile makes one, per Gateway)",
		"--config takes one Gateway's PluginConfig: the pluginConfig of one of its gateways; or give --gateway ns/name and the topology's files"); err != nil {
		return nil, err
	}
	doc, err := readDocument(file, "a PluginConfig file holds one document", "no PluginConfig in the file")
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
	var list fielderr.List
	if !errors.As(err, &list) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return nil, locate(file, doc, list, func(e *fielderr.Error) string { return e.Field })
}

// checkContent checks that file holds what a flag takes (want). When it holds something
// else it returns "file: this file holds X; " + takes, or + fromCompile when the file is
// the output of rlpkit compile. A file that cannot be read or parsed, that holds nothing,
// or that holds nothing rlpkit recognises is left to the flag's own reader to report.
func checkContent(file string, want policy.Content, takes, fromCompile string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	fc, ok := identifyFile(data)
	switch {
	case !ok, fc.Content == want, fc.Content == policy.ContentEmpty, fc.Content == policy.ContentOther:
		return nil // the flag's own reader says what is wrong
	case fc.Content == policy.ContentCompileOutput:
		return fmt.Errorf("%s: this file holds %s; %s", file, fc, fromCompile)
	}
	return fmt.Errorf("%s: this file holds %s; %s", file, fc, takes)
}

// readDocument reads a file that holds one YAML or JSON document. The messages say what is
// wrong when the file holds several documents (tooMany, after "file:line: ") or none
// (empty, after "file: ").
func readDocument(file, tooMany, empty string) (*yamljson.Document, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseDocument(file, data, tooMany, empty)
}

// parseDocument is readDocument of data, read from file.
func parseDocument(file string, data []byte, tooMany, empty string) (*yamljson.Document, error) {
	docs, err := yamljson.Convert(data)
	if err != nil {
		return nil, prefixLines(file, err)
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

// locate reports a list of field errors found in doc, one a line, each prefixed with
// "file:line: " for the line of its field.
func locate[E error](file string, doc *yamljson.Document, list []E, field func(E) string) error {
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = fmt.Sprintf("%s:%d: %s", file, doc.Line(field(e)), e.Error())
	}
	return errors.New(strings.Join(lines, "\n"))
}

// prefixLines puts "file: " before every line of err.
func prefixLines(file string, err error) error {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = file + ": " + l
	}
	return errors.New(strings.Join(lines, "\n"))
}
