package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

// compileEnvoyGateway compiles the BackendTrafficPolicies of set as Envoy Gateway does and
// prints, as YAML, the rate-limit service's configurations, the routes' rate limits and
// the statuses; with split, it also writes one envoyproxy/ratelimit configuration file per
// domain into that directory. Statuses that are not Accepted are warnings on stderr; with
// strict they fail the command and nothing is printed or written.
func compileEnvoyGateway(set *policy.Set, split string, strict bool, stdout, stderr io.Writer) error {
	res, err := envoygateway.Compile(set)
	if err != nil {
		return err
	}
	warnings := envoyGatewayWarnings(set, res)
	printWarnings(stderr, warnings)
	if n := len(set.Policies) + len(set.PoliciesV1); n > 0 {
		fmt.Fprintf(stderr, "warning: -o envoy-gateway compiles BackendTrafficPolicies only; %d RateLimitPolicies left out\n", n)
	}
	if err := strictError(strict, warnings); err != nil {
		return err
	}
	if split != "" {
		if err := writeSplit(split, res, stderr); err != nil {
			return err
		}
	}
	out, err := render(res, "yaml")
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// splitFileName returns the file of a domain's configuration: the domain with "/" as "_"
// (no name of a namespace, Gateway, listener or policy holds "_"), and ".yaml".
func splitFileName(domain string) string { return strings.ReplaceAll(domain, "/", "_") + ".yaml" }

// writeSplit writes one envoyproxy/ratelimit configuration file per domain into dir,
// creating it, and notes on stderr the YAML files already there that it did not write.
func writeSplit(dir string, res *envoygateway.Result, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, c := range res.RateLimitConfigs {
		data, err := envoygateway.ConfigFile(&c)
		if err != nil {
			return err
		}
		name := splitFileName(c.Domain)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
		written[name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && !written[e.Name()] && (ext == ".yaml" || ext == ".yml") {
			fmt.Fprintf(stderr, "warning: --split %s: %s was not written by this compile; a rate-limit service reading the directory reads it too\n", dir, e.Name())
		}
	}
	return nil
}

// envoyGatewayWarnings returns a warning for every Accepted condition that is not True, at
// the policy's targets: "file:line: BackendTrafficPolicy ns/name: spec.targetRefs:
// Reason: message (ancestor ns/gw)".
func envoyGatewayWarnings(set *policy.Set, res *envoygateway.Result) []merge.Warning {
	keys := map[string]policy.ObjectKey{}
	for _, p := range set.BackendTrafficPolicies {
		keys[p.Namespace+"/"+p.Name] = policy.BackendTrafficPolicyKey(p)
	}
	var out []merge.Warning
	for _, st := range res.Statuses {
		if st.Accepted == "True" {
			continue
		}
		field := "spec.targetRefs"
		if st.Reason == envoygateway.ReasonInvalid {
			field = "spec.rateLimit"
		}
		src, _ := set.FieldSource(keys[st.Policy], field)
		out = append(out, merge.Warning{Source: src, Object: "BackendTrafficPolicy " + st.Policy, Field: field,
			Message: fmt.Sprintf("%s: %s (ancestor %s)", st.Reason, st.Message, st.Ancestor)})
	}
	slices.SortStableFunc(out, func(a, b merge.Warning) int {
		return cmp.Or(cmp.Compare(a.Source.File, b.Source.File), cmp.Compare(a.Source.Line, b.Source.Line))
	})
	return out
}

// validateEnvoyGateway prints the warnings of the BackendTrafficPolicies of set (the
// statuses that are not Accepted) and returns them, for --strict.
func validateEnvoyGateway(set *policy.Set, stderr io.Writer) ([]merge.Warning, error) {
	if len(set.BackendTrafficPolicies) == 0 {
		return nil, nil
	}
	res, err := envoygateway.Compile(set)
	if err != nil {
		return nil, err
	}
	warnings := envoyGatewayWarnings(set, res)
	printWarnings(stderr, warnings)
	return warnings, nil
}
