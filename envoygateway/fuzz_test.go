package envoygateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policy"
)

// FuzzCompile compiles arbitrary documents and evaluates a request on every Gateway: no
// input panics, and a valid one compiles.
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "compile", "*", "input.yaml"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "/", "10.0.0.1")
	}
	f.Fuzz(func(t *testing.T, data []byte, path, remote string) {
		set, err := policy.Decode("fuzz.yaml", data)
		if err != nil || set == nil {
			return
		}
		res, err := Compile(set)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		for _, gw := range res.Gateways {
			for _, port := range []int32{0, 80, 8080} {
				gw.Evaluate(&descriptor.Request{Method: "GET", Host: "a.b.test", Path: path, RemoteAddress: remote,
					Headers: descriptor.HeaderMap{"x-user": {"u"}}}, port)
			}
		}
	})
}

// BenchmarkEvaluate evaluates a request with every kind of selector on a route of the
// route-actions case, as rlpkit simulate does for every line of a log.
func BenchmarkEvaluate(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "compile", "route-actions", "input.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	set, err := policy.Decode("input.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Compile(set)
	if err != nil {
		b.Fatal(err)
	}
	gw := res.Gateway("harbor/quay")
	req := &descriptor.Request{Method: "GET", Host: "any.example", Path: "/api/v1?q=1&d=zz", RemoteAddress: "172.16.10.4",
		Headers: descriptor.HeaderMap{"x-user": {"alice"}, "x-org": {"acme"}, "x-plan": {"bronze"}}}
	b.ReportAllocs()
	for b.Loop() {
		if ev := gw.Evaluate(req, 80); len(ev.Calls) == 0 {
			b.Fatal("no call")
		}
	}
}
