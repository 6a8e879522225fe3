package httplimit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestDefaultConfig(t *testing.T) {
	want := Config{Category: "limit", Type: "rate", Tag: "ip", Interval: 10 * time.Second, Weight: 50, Step: "request"}
	if diff := cmp.Diff(want, DefaultConfig()); diff != "" {
		t.Errorf("DefaultConfig() mismatch (-want +got):\n%s", diff)
	}
}

// validConfig is DefaultConfig with max set, changed by f.
func validConfig(f func(*Config)) Config {
	c := DefaultConfig()
	c.Max = 10
	if f != nil {
		f(&c)
	}
	return c
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		want fielderr.List
	}{
		{name: "defaults with max", c: validConfig(nil)},
		{name: "max 0", c: validConfig(func(c *Config) { c.Max = 0 })},
		{name: "max at bound", c: validConfig(func(c *Config) { c.Max = 1<<32 - 1 })},
		{name: "inflight cookie", c: validConfig(func(c *Config) { c.Type, c.Tag, c.Key = TypeInflight, TagCookie, "deviceId" })},
		{name: "header proxy_upstream", c: validConfig(func(c *Config) { c.Tag, c.Key, c.Step = TagHeader, "X-API-Key", StepProxyUpstream })},
		{name: "query", c: validConfig(func(c *Config) { c.Tag, c.Key = TagQuery, "token" })},
		{name: "ip ignores key", c: validConfig(func(c *Config) { c.Key = "anything" })},
		{name: "weight bounds", c: validConfig(func(c *Config) { c.Weight = 0 })},
		{name: "weight 100", c: validConfig(func(c *Config) { c.Weight = 100 })},
		{name: "interval 1us", c: validConfig(func(c *Config) { c.Interval = time.Microsecond })},
		{
			name: "category",
			c:    validConfig(func(c *Config) { c.Category = "cache" }),
			want: fielderr.List{{Pkg: pkg, Field: "category", Detail: `must be "limit", got "cache"`}},
		},
		{
			name: "unknown type",
			c:    validConfig(func(c *Config) { c.Type = "token" }),
			want: fielderr.List{{Pkg: pkg, Field: "type", Detail: `unknown type "token", want "rate" or "inflight"`}},
		},
		{
			name: "unknown tag",
			c:    validConfig(func(c *Config) { c.Tag = "path" }),
			want: fielderr.List{{Pkg: pkg, Field: "tag", Detail: `unknown tag "path", want "ip", "header", "cookie" or "query"`}},
		},
		{
			name: "header without key",
			c:    validConfig(func(c *Config) { c.Tag = TagHeader }),
			want: fielderr.List{{Pkg: pkg, Field: "key", Detail: `required when tag is "header"`}},
		},
		{
			name: "cookie without key",
			c:    validConfig(func(c *Config) { c.Tag = TagCookie }),
			want: fielderr.List{{Pkg: pkg, Field: "key", Detail: `required when tag is "cookie"`}},
		},
		{
			name: "query without key",
			c:    validConfig(func(c *Config) { c.Tag = TagQuery }),
			want: fielderr.List{{Pkg: pkg, Field: "key", Detail: `required when tag is "query"`}},
		},
		{
			name: "negative max",
			c:    validConfig(func(c *Config) { c.Max = -1 }),
			want: fielderr.List{{Pkg: pkg, Field: "max", Detail: "must not be negative, got -1"}},
		},
		{
			name: "max too large",
			c:    validConfig(func(c *Config) { c.Max = 1 << 32 }),
			want: fielderr.List{{Pkg: pkg, Field: "max", Detail: "must be at most 4294967295, got 4294967296"}},
		},
		{
			name: "zero interval",
			c:    validConfig(func(c *Config) { c.Interval = 0 }),
			want: fielderr.List{{Pkg: pkg, Field: "interval", Detail: `must be greater than 0, got "0s"`}},
		},
		{
			name: "negative interval",
			c:    validConfig(func(c *Config) { c.Interval = -time.Second }),
			want: fielderr.List{{Pkg: pkg, Field: "interval", Detail: `must be greater than 0, got "-1s"`}},
		},
		{
			name: "sub-microsecond interval",
			c:    validConfig(func(c *Config) { c.Interval = 999 * time.Nanosecond }),
			want: fielderr.List{{Pkg: pkg, Field: "interval", Detail: `must be at least 1µs, got "999ns"`}},
		},
		{
			name: "interval too long",
			c:    validConfig(func(c *Config) { c.Interval = counter.MaxWindow + time.Second }),
			want: fielderr.List{{Pkg: pkg, Field: "interval", Detail: `must be at most "1193046h28m15s", got "1193046h28m16s"`}},
		},
		{
			name: "weight below",
			c:    validConfig(func(c *Config) { c.Weight = -1 }),
			want: fielderr.List{{Pkg: pkg, Field: "weight", Detail: "must be between 0 and 100, got -1"}},
		},
		{
			name: "weight above",
			c:    validConfig(func(c *Config) { c.Weight = 101 }),
			want: fielderr.List{{Pkg: pkg, Field: "weight", Detail: "must be between 0 and 100, got 101"}},
		},
		{
			name: "unknown step",
			c:    validConfig(func(c *Config) { c.Step = "response" }),
			want: fielderr.List{{Pkg: pkg, Field: "step", Detail: `unknown step "response", want "request" or "proxy_upstream"`}},
		},
		{
			name: "zero value reports everything",
			c:    Config{},
			want: fielderr.List{
				{Pkg: pkg, Field: "category", Detail: `must be "limit", got ""`},
				{Pkg: pkg, Field: "type", Detail: `unknown type "", want "rate" or "inflight"`},
				{Pkg: pkg, Field: "tag", Detail: `unknown tag "", want "ip", "header", "cookie" or "query"`},
				{Pkg: pkg, Field: "interval", Detail: `must be greater than 0, got "0s"`},
				{Pkg: pkg, Field: "step", Detail: `unknown step "", want "request" or "proxy_upstream"`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got fielderr.List
			if err := tc.c.Validate(); err != nil {
				got = err.(fielderr.List)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%+v.Validate() mismatch (-want +got):\n%s", tc.c, diff)
			}
		})
	}
}

func TestErrorListError(t *testing.T) {
	l := fielderr.List{{Pkg: pkg, Field: "plugins.a.max", Detail: "required"}, {Pkg: pkg, Detail: "whole"}}
	want := "httplimit: plugins.a.max: required\nhttplimit: whole"
	if got := l.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
