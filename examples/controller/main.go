// Command controller shows how a controller uses rlpkit: it reads the objects a cluster
// would hold (here from files, where a real controller reads its informer caches), compiles
// them with package merge, writes each policy's status conditions the way a controller
// patches them, and emits per Gateway the two artefacts it would apply: the filter's
// PluginConfig (a proxy-wasm plugin's configuration) and the rate-limit service's limits
// (limitador's limits file, as a ConfigMap would hold it).
//
// Usage:
//
//	go run ./examples/controller [-out DIR] PATH...
//
// Without -out it prints a summary; with -out it writes DIR/<gateway>/pluginconfig.json and
// DIR/<gateway>/limits.json and DIR/status/<policy>.json.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now()))
}

func run(args []string, stdout, stderr io.Writer, now time.Time) int {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the artefacts under this `directory`")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: controller [-out DIR] PATH...")
		return 2
	}

	// 1. The objects: a controller lists them from its caches. Invalid ones are reported and
	//    kept, so that their policies get Accepted=False, reason Invalid.
	set, err := policy.Read(fs.Args(), nil)
	if err != nil {
		fmt.Fprintf(stderr, "some objects are invalid:\n%v\n", err)
	}

	// 2. Merge and compile.
	res, err := merge.Compile(set, merge.Options{UpstreamCluster: "outbound|8081||limitador.kuadrant-system.svc.cluster.local", Now: metav1.NewTime(now)})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}

	// 3. Status: set the conditions on each policy as a status patch would, keeping
	//    lastTransitionTime when a condition's status does not change.
	byName := map[string]*policy.RateLimitPolicy{}
	for _, p := range set.Policies {
		byName[p.Namespace+"/"+p.Name] = p.DeepCopy()
	}
	for _, st := range res.Policies {
		p := byName[st.Name]
		for _, c := range st.Conditions {
			meta.SetStatusCondition(&p.Status.Conditions, c)
		}
		if *out != "" {
			if err := writeJSON(filepath.Join(*out, "status", strings.ReplaceAll(st.Name, "/", "_")+".json"), p.Status); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
		}
		for _, c := range p.Status.Conditions {
			fmt.Fprintf(stdout, "status %s: %s=%s (%s)\n", st.Name, c.Type, c.Status, c.Reason)
		}
	}

	// 4. Artefacts per Gateway. A filter would compile the PluginConfig at start-up; doing it
	//    here too catches a configuration the filter would refuse before it is applied.
	for _, gw := range res.Gateways {
		if _, err := descriptor.Compile(&gw.PluginConfig); err != nil {
			fmt.Fprintf(stderr, "gateway %s: the compiled PluginConfig is refused: %v\n", gw.Gateway, err)
			return 1
		}
		fmt.Fprintf(stdout, "gateway %s: %d rate-limit policies, %d limits\n", gw.Gateway, len(gw.PluginConfig.RateLimitPolicies), len(gw.Limits))
		if *out == "" {
			continue
		}
		dir := filepath.Join(*out, strings.ReplaceAll(gw.Gateway, "/", "_"))
		if err := writeJSON(filepath.Join(dir, "pluginconfig.json"), gw.PluginConfig); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if err := writeJSON(filepath.Join(dir, "limits.json"), gw.Limits); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	return 0
}

func writeJSON(file string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}
