package envoyxds

import (
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/yamljson"
)

// FuzzTranslate decodes arbitrary bytes as a PluginConfig and translates it: nothing panics,
// a refusal is a non-empty fielderr.List, and an accepted configuration validates, renders, and
// makes Envoy send what descriptor generates for requests drawn from its vocabulary.
func FuzzTranslate(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "descriptor", "testdata", "generate", "*", "config.yaml"))
	for _, file := range append(files, more...) {
		js, err := yamljson.ToJSON(readFile(f, file))
		if err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		f.Add(js)
	}
	for _, s := range []string{
		`{}`,
		`{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["*.a.com","b.a.com"],"routeMatches":[{"path":{"type":"PathPrefix","value":"/x/"},"method":"GET"}],"gatewayActions":[{"rules":[{"paths":["/x/y*","/x"],"methods":["GET","PUT"],"hosts":["b.a.com"]},{"hosts":["*.a.com"]}],"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}],"hits_addend":{"number":3}}]},{"rules":[{"paths":["/x/*"]}],"configurations":[{"actions":[{"remote_address":{}}]}]}]}]}`,
		`{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["*"],"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}],"hits_addend":{"dynamic_metadata":{"metadata_key":{"key":"a:b","path":[{"key":"c"}]}}}}]}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzOne)
}

// fuzzOne is the body of FuzzTranslate.
func fuzzOne(t *testing.T, data []byte) {
	cfg, err := descriptor.Decode(data)
	if err != nil {
		return
	}
	out, err := Translate(cfg, Options{MaxRoutes: 64})
	if err != nil {
		var list fielderr.List
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("Translate() = %v (%T), want fielderr.List", err, err)
		}
		return
	}
	validateOutput(t, out)
	if _, err := out.Render(); err != nil {
		t.Fatalf("Render() = %v", err)
	}
	if err := descriptor.Validate(cfg); err != nil {
		t.Fatalf("Translate accepted a configuration descriptor.Validate rejects: %v", err)
	}
	c := newChecker(t, cfg)
	h := fnv.New64a()
	h.Write(data)
	rng := rand.New(rand.NewPCG(h.Sum64(), 2))
	v := newVocabulary(cfg)
	for range 20 {
		req := v.probe(rng)
		c.check(t, &req)
		if t.Failed() {
			t.FailNow()
		}
	}
}
