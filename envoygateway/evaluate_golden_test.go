package envoygateway

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/internal/golden"
)

// goldenRequest is one request of testdata/compile/<case>/requests.yaml.
type goldenRequest struct {
	Gateway  string              `json:"gateway"`
	Port     int32               `json:"port,omitempty"`
	Method   string              `json:"method,omitempty"`
	Host     string              `json:"host"`
	Path     string              `json:"path"`
	Headers  map[string][]string `json:"headers,omitempty"`
	Remote   string              `json:"remoteAddress,omitempty"`
	Metadata map[string]any      `json:"metadata,omitempty"`
}

// goldenEvaluation is what the golden files record of an Evaluation.
type goldenEvaluation struct {
	Request goldenRequest `json:"request"`
	Route   string        `json:"route"`
	Calls   []Call        `json:"calls"`
	Done    []Call        `json:"done,omitempty"`
	Local   *LocalRequest `json:"local,omitempty"`
	Trace   []string      `json:"trace"`
}

func evaluateAll(t *testing.T, res *Result, reqs []goldenRequest) []byte {
	t.Helper()
	var out []goldenEvaluation
	for _, r := range reqs {
		gw := res.Gateway(r.Gateway)
		if gw == nil {
			t.Fatalf("no Gateway %s", r.Gateway)
		}
		method := r.Method
		if method == "" {
			method = "GET"
		}
		req := &descriptor.Request{Method: method, Host: r.Host, Path: r.Path, Headers: descriptor.HeaderMap(r.Headers), RemoteAddress: r.Remote}
		if r.Metadata != nil {
			req.DynamicMetadata = descriptor.Metadata(r.Metadata)
		}
		ev := gw.Evaluate(req, r.Port)
		g := goldenEvaluation{Request: r, Calls: ev.Calls, Done: ev.Done, Local: ev.Local, Trace: ev.Trace}
		if ev.Route != nil {
			g.Route = ev.Route.Name
		}
		out = append(out, g)
	}
	js, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(js)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// TestEvaluateGolden evaluates the requests of testdata/compile/<case>/requests.yaml and
// compares the routes, calls and traces with evaluations.yaml; the inputs in shuffled orders
// give byte-identical output.
func TestEvaluateGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "compile", "*", "requests.yaml"))
	if len(files) == 0 {
		t.Fatal("no golden requests")
	}
	for _, file := range files {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var reqs []goldenRequest
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.UnmarshalStrict(data, &reqs); err != nil {
				t.Fatal(err)
			}
			input, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got := evaluateAll(t, compileFile(t, input), reqs)
			golden.Check(t, filepath.Join(dir, "evaluations.yaml"), got)
			docs := strings.Split(string(input), "\n---\n")
			rng := rand.New(rand.NewPCG(2, uint64(len(docs))))
			for i := range 3 {
				rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
				again := evaluateAll(t, compileFile(t, []byte(strings.Join(docs, "\n---\n"))), reqs)
				if !bytes.Equal(again, got) {
					t.Fatalf("shuffle %d differs:\n%s", i, cmp.Diff(string(got), string(again)))
				}
			}
		})
	}
}
