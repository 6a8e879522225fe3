package main

import (
	"fmt"

	"github.com/rlpkit/rlpkit/configfile"
	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/policy"
)

// loadPluginConfig reads a PluginConfig file (YAML or JSON, either schema) and compiles it
// (configfile.PluginConfig), after checking the file is not another kind of input.
func loadPluginConfig(file string) (*descriptor.Engine, error) {
	if err := checkContent(file, policy.ContentPluginConfig, "--config takes a PluginConfig (rlpkit compile makes one, per Gateway)",
		"--config takes one Gateway's PluginConfig: the pluginConfig of one of its gateways; or give --gateway ns/name and the topology's files"); err != nil {
		return nil, err
	}
	return configfile.PluginConfig(file)
}

// checkContent checks that file holds what a flag takes (want). When it holds something
// else it returns "file: this file holds X; " + takes, or + fromCompile when the file is
// the output of rlpkit compile. A file that cannot be read or parsed, that holds nothing,
// or that holds nothing rlpkit recognises is left to the flag's own reader to report.
func checkContent(file string, want policy.Content, takes, fromCompile string) error {
	data, err := inputlimit.ReadFile(file)
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
