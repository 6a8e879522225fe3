package httplimit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/fielderr"
)

// pingapExamples are the three examples of pingap's limit plugin documentation, in one file.
const pingapExamples = `
[plugins.rateLimit]
category = "limit"
type = "rate"
tag = "ip"
max = 600
interval = "60s"

[plugins.userInflight]
category = "limit"
type = "inflight"
tag = "cookie"
key = "deviceId"
max = 10

[plugins.upstreamGuard]
category = "limit"
type = "inflight"
tag = "header"
key = "X-API-Key"
max = 20
step = "proxy_upstream"
`

func TestParseTOML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Plugin
	}{
		{
			name: "pingap examples, in file order",
			in:   pingapExamples,
			want: []Plugin{
				{Name: "rateLimit", Config: Config{Category: "limit", Type: "rate", Tag: "ip", Max: 600, Interval: time.Minute, Weight: 50, Step: "request"}},
				{Name: "userInflight", Config: Config{Category: "limit", Type: "inflight", Tag: "cookie", Key: "deviceId", Max: 10, Interval: 10 * time.Second, Weight: 50, Step: "request"}},
				{Name: "upstreamGuard", Config: Config{Category: "limit", Type: "inflight", Tag: "header", Key: "X-API-Key", Max: 20, Interval: 10 * time.Second, Weight: 50, Step: "proxy_upstream"}},
			},
		},
		{
			name: "defaults",
			in:   "[plugins.a]\ncategory = \"limit\"\nmax = 0\n",
			want: []Plugin{{Name: "a", Config: Config{Category: "limit", Type: "rate", Tag: "ip", Interval: 10 * time.Second, Weight: 50, Step: "request"}}},
		},
		{
			name: "every key",
			in: `[plugins."quoted.name"]
category = "limit"
type = "rate"
tag = "query"
key = "token"
max = 5
interval = "1m30s"
weight = 0
step = "proxy_upstream"
`,
			want: []Plugin{{Name: "quoted.name", Config: Config{Category: "limit", Type: "rate", Tag: "query", Key: "token", Max: 5, Interval: 90 * time.Second, Weight: 0, Step: "proxy_upstream"}}},
		},
		{
			name: "inline tables",
			in:   "plugins = { b = { category = \"limit\", max = 1 }, a = { category = \"limit\", max = 2 } }\n",
			want: []Plugin{
				{Name: "b", Config: validConfig(func(c *Config) { c.Max = 1 })},
				{Name: "a", Config: validConfig(func(c *Config) { c.Max = 2 })},
			},
		},
		{name: "empty file", in: ""},
		{name: "no plugins", in: "[plugins]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTOML([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseTOML(%q) error: %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseTOML(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseTOMLErrors(t *testing.T) {
	const head = "[plugins.p]\ncategory = \"limit\"\nmax = 1\n"
	tests := []struct {
		name string
		in   string
		want fielderr.List
	}{
		{
			name: "missing category",
			in:   "[plugins.p]\nmax = 1\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.category", Detail: `required, must be "limit"`}},
		},
		{
			name: "wrong category",
			in:   "[plugins.p]\ncategory = \"cache\"\nmax = 1\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.category", Detail: `must be "limit", got "cache"`}},
		},
		{
			name: "unknown type",
			in:   head + "type = \"bucket\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.type", Detail: `unknown type "bucket", want "rate" or "inflight"`}},
		},
		{
			name: "unknown tag",
			in:   head + "tag = \"path\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.tag", Detail: `unknown tag "path", want "ip", "header", "cookie" or "query"`}},
		},
		{
			name: "key required",
			in:   head + "tag = \"header\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.key", Detail: `required when tag is "header"`}},
		},
		{
			name: "empty key",
			in:   head + "tag = \"cookie\"\nkey = \"\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.key", Detail: `required when tag is "cookie"`}},
		},
		{
			name: "missing max",
			in:   "[plugins.p]\ncategory = \"limit\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.max", Detail: "required"}},
		},
		{
			name: "negative max",
			in:   "[plugins.p]\ncategory = \"limit\"\nmax = -5\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.max", Detail: "must not be negative, got -5"}},
		},
		{
			name: "zero interval",
			in:   head + "interval = \"0s\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.interval", Detail: `must be greater than 0, got "0s"`}},
		},
		{
			name: "negative interval",
			in:   head + "interval = \"-1m\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.interval", Detail: `must be greater than 0, got "-1m0s"`}},
		},
		{
			name: "bad interval",
			in:   head + "interval = \"10\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.interval", Detail: `invalid duration "10", want one such as "10s" or "1m"`}},
		},
		{
			name: "integer interval",
			in:   head + "interval = 10\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.interval", Detail: `must be a duration string such as "10s", got an integer`}},
		},
		{
			name: "weight above",
			in:   head + "weight = 101\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.weight", Detail: "must be between 0 and 100, got 101"}},
		},
		{
			name: "weight below",
			in:   head + "weight = -1\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.weight", Detail: "must be between 0 and 100, got -1"}},
		},
		{
			name: "unknown step",
			in:   head + "step = \"response\"\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.step", Detail: `unknown step "response", want "request" or "proxy_upstream"`}},
		},
		{
			name: "wrong types",
			in:   "[plugins.p]\ncategory = 1\ntype = true\ntag = 1.5\nkey = []\nmax = \"10\"\nweight = \"50\"\nstep = {}\n",
			want: fielderr.List{
				{Pkg: pkg, Field: "plugins.p.category", Detail: "must be a string, got an integer"},
				{Pkg: pkg, Field: "plugins.p.type", Detail: "must be a string, got a bool"},
				{Pkg: pkg, Field: "plugins.p.tag", Detail: "must be a string, got a float"},
				{Pkg: pkg, Field: "plugins.p.key", Detail: "must be a string, got an array"},
				{Pkg: pkg, Field: "plugins.p.max", Detail: "must be an integer, got a string"},
				{Pkg: pkg, Field: "plugins.p.weight", Detail: "must be an integer, got a string"},
				{Pkg: pkg, Field: "plugins.p.step", Detail: "must be a string, got a table"},
			},
		},
		{
			name: "unknown key",
			in:   head + "burst = 5\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.burst", Detail: "unknown key, want one of category, type, tag, key, max, interval, weight, step"}},
		},
		{
			name: "unknown table in a plugin",
			in:   head + "[plugins.p.extra]\nx = 1\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.extra", Detail: "unknown key, want one of category, type, tag, key, max, interval, weight, step"}},
		},
		{
			name: "key in another case",
			in:   "[plugins.p]\ncategory = \"limit\"\nMAX = 5\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p.MAX", Detail: `unknown key (keys are case-sensitive: did you mean "max"?)`}},
		},
		{
			name: "unknown top-level key",
			in:   "[basic]\nname = \"x\"\n" + head,
			want: fielderr.List{{Pkg: pkg, Field: "basic", Detail: "unknown key, want plugins"}},
		},
		{
			name: "plugins not a table",
			in:   "plugins = 5\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins", Detail: "must be a table, got an integer"}},
		},
		{
			name: "plugin not a table",
			in:   "[plugins]\np = 5\n",
			want: fielderr.List{{Pkg: pkg, Field: "plugins.p", Detail: "must be a table, got an integer"}},
		},
		{
			name: "every problem of every plugin, in file order",
			in: `[plugins.b]
category = "limit"
type = "x"
max = -1
color = "red"

[plugins.a]
category = "limit"
max = 1
tag = "header"
weight = 200
`,
			want: fielderr.List{
				{Pkg: pkg, Field: "plugins.b.type", Detail: `unknown type "x", want "rate" or "inflight"`},
				{Pkg: pkg, Field: "plugins.b.max", Detail: "must not be negative, got -1"},
				{Pkg: pkg, Field: "plugins.b.color", Detail: "unknown key, want one of category, type, tag, key, max, interval, weight, step"},
				{Pkg: pkg, Field: "plugins.a.key", Detail: `required when tag is "header"`},
				{Pkg: pkg, Field: "plugins.a.weight", Detail: "must be between 0 and 100, got 200"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTOML([]byte(tc.in))
			if err == nil {
				t.Fatalf("ParseTOML(%q) = %+v, want errors %v", tc.in, got, tc.want)
			}
			list, ok := err.(fielderr.List)
			if !ok {
				t.Fatalf("ParseTOML(%q) error = %T %v, want a fielderr.List", tc.in, err, err)
			}
			if diff := cmp.Diff(tc.want, list); diff != "" {
				t.Errorf("ParseTOML(%q) errors mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseTOMLSyntaxError(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // substring of the error
	}{
		{name: "syntax", in: "[plugins.p\n", want: "line 2"},
		{name: "duplicate plugin", in: "[plugins.p]\ncategory = \"limit\"\n[plugins.p]\n", want: "plugins.p"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTOML([]byte(tc.in))
			if err == nil || !strings.HasPrefix(err.Error(), "httplimit: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseTOML(%q) error = %v, want one starting httplimit: and mentioning %q", tc.in, err, tc.want)
			}
		})
	}
}

func FuzzParseTOML(f *testing.F) {
	f.Add(pingapExamples)
	f.Add("[plugins.p]\ncategory = 1\ntype = true\ntag = 1.5\nkey = []\nmax = \"10\"\nweight = \"50\"\nstep = {}\n")
	f.Add("plugins = { b = { category = \"limit\", max = 1 } }\n")
	f.Add("[plugins.p]\ncategory = \"limit\"\nMAX = 5\n[plugins.p.x]\ny = 1\n")
	f.Add("[[plugins.p]]\ncategory = \"limit\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		plugins, err := ParseTOML([]byte(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "httplimit: ") {
				t.Fatalf("ParseTOML(%q) error %q does not start with httplimit:", in, err)
			}
			return
		}
		for _, p := range plugins {
			if err := p.Config.Validate(); err != nil {
				t.Fatalf("ParseTOML(%q) returned plugin %q with invalid config: %v", in, p.Name, err)
			}
		}
	})
}
