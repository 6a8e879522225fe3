package descriptor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/internal/golden"
	"github.com/rlpkit/rlpkit/yamljson"
)

// goldenRequest is a request as the golden files write it.
type goldenRequest struct {
	Method          string              `json:"method"`
	Host            string              `json:"host"`
	Path            string              `json:"path"`
	Headers         map[string][]string `json:"headers"`
	RemoteAddress   string              `json:"remote_address"`
	DynamicMetadata map[string]any      `json:"dynamic_metadata"`
	RouteMetadata   map[string]any      `json:"route_metadata"`
	HitsAddend      uint32              `json:"hits_addend"`
}

func (g *goldenRequest) request() *Request {
	h := HeaderMap{}
	for k, vs := range g.Headers {
		h[strings.ToLower(k)] = append(h[strings.ToLower(k)], vs...)
	}
	req := &Request{
		Method:        g.Method,
		Host:          g.Host,
		Path:          g.Path,
		Headers:       h,
		RemoteAddress: g.RemoteAddress,
		HitsAddend:    g.HitsAddend,
	}
	if g.DynamicMetadata != nil {
		req.DynamicMetadata = Metadata(g.DynamicMetadata)
	}
	if g.RouteMetadata != nil {
		req.RouteMetadata = Metadata(g.RouteMetadata)
	}
	return req
}

// goldenWant is what a golden case expects: the result as the CLI prints it, and the trace.
type goldenWant struct {
	Result  json.RawMessage `json:"result"`
	Explain []string        `json:"explain"`
}

// TestGolden runs every testdata/generate/<case>/<name>.request.json against the case's
// config.yaml and compares with <name>.want.json. Run with -update to rewrite the want files.
func TestGolden(t *testing.T) {
	for _, dir := range golden.Glob(t, filepath.Join("testdata", "generate", "*")) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			engine := compileFile(t, filepath.Join(dir, "config.yaml"))
			for _, reqFile := range golden.Glob(t, filepath.Join(dir, "*.request.json")) {
				name := strings.TrimSuffix(filepath.Base(reqFile), ".request.json")
				t.Run(name, func(t *testing.T) {
					var g goldenRequest
					dec := json.NewDecoder(bytes.NewReader(readFile(t, reqFile)))
					dec.DisallowUnknownFields()
					dec.UseNumber()
					if err := dec.Decode(&g); err != nil {
						t.Fatalf("%s: %v", reqFile, err)
					}
					req := g.request()
					res, tr := engine.Explain(req)
					checkConsistent(t, engine, req, res)
					got := render(t, res, tr)
					golden.Check(t, filepath.Join(dir, name+".want.json"), got)
				})
			}
		})
	}
}

// checkConsistent asserts that Generate, GenerateInto on a reused Result, and Explain agree.
func checkConsistent(t *testing.T, e *Engine, req *Request, explained *Result) {
	t.Helper()
	want, _ := json.Marshal(explained)
	fresh, _ := json.Marshal(e.Generate(req))
	var reused Result
	e.GenerateInto(&Request{Host: "unrelated.invalid"}, &reused)
	e.GenerateInto(req, &reused)
	e.GenerateInto(req, &reused)
	again, _ := json.Marshal(&reused)
	if string(fresh) != string(want) || string(again) != string(want) {
		t.Errorf("Generate = %s, GenerateInto = %s, Explain = %s; want all equal", fresh, again, want)
	}
}

func render(t *testing.T, res *Result, tr *Trace) []byte {
	t.Helper()
	r, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	w := goldenWant{Result: r, Explain: strings.Split(strings.TrimSuffix(tr.String(), "\n"), "\n")}
	out, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func compileFile(t *testing.T, file string) *Engine {
	t.Helper()
	js, err := yamljson.ToJSON(readFile(t, file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	cfg, err := Decode(js)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	e, err := Compile(cfg)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return e
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
