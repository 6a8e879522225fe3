package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/yamljson"
)

// loadPluginConfig reads a PluginConfig file (YAML or JSON, either schema) and compiles it.
// Every problem is reported as "file:line: field: detail", one per line.
func loadPluginConfig(file string) (*descriptor.Engine, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	docs, err := yamljson.Convert(data)
	if err != nil {
		return nil, prefixLines(file, err)
	}
	var doc *yamljson.Document
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		if doc != nil {
			return nil, fmt.Errorf("%s:%d: a PluginConfig file holds one document", file, docs[i].StartLine)
		}
		doc = &docs[i]
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: no PluginConfig in the file", file)
	}
	cfg, err := descriptor.Decode(doc.JSON)
	if err == nil {
		var engine *descriptor.Engine
		if engine, err = descriptor.Compile(cfg); err == nil {
			return engine, nil
		}
	}
	var list descriptor.Errors
	if !errors.As(err, &list) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	lines := make([]string, len(list))
	for i, fe := range list {
		lines[i] = fmt.Sprintf("%s:%d: %s", file, doc.Line(fe.Field), fe.Error())
	}
	return nil, errors.New(strings.Join(lines, "\n"))
}

// prefixLines puts "file: " before every line of err.
func prefixLines(file string, err error) error {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = file + ": " + l
	}
	return errors.New(strings.Join(lines, "\n"))
}
