package descriptor

import "testing"

// BenchmarkGenerate measures the toystore PluginConfig scaled to 1,000 policies with a request
// that matches policy 500 and produces two descriptors.
func BenchmarkGenerate(b *testing.B) {
	e := mustCompile(b, toystore(1000))
	req := &Request{Method: "POST", Host: "api.toystore-500.com", Path: "/admin/toy", Headers: HeaderMap{"x-user": {"alice"}}}
	b.Run("GenerateInto", func(b *testing.B) {
		var res Result
		b.ReportAllocs()
		for b.Loop() {
			e.GenerateInto(req, &res)
		}
		if len(res.Descriptors) != 2 {
			b.Fatalf("%d descriptors, want 2", len(res.Descriptors))
		}
	})
	b.Run("Generate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if res := e.Generate(req); len(res.Descriptors) != 2 {
				b.Fatalf("%d descriptors, want 2", len(res.Descriptors))
			}
		}
	})
	b.Run("NoPolicy", func(b *testing.B) {
		miss := &Request{Method: "GET", Host: "www.example.org", Path: "/"}
		var res Result
		b.ReportAllocs()
		for b.Loop() {
			e.GenerateInto(miss, &res)
		}
	})
}

// BenchmarkCompile measures compiling the 1,000-policy toystore configuration.
func BenchmarkCompile(b *testing.B) {
	cfg := toystore(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
