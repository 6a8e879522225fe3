package httplimit

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// stdCookie is what net/http finds for name.
func stdCookie(lines []string, name string) string {
	r := &http.Request{Header: http.Header{"Cookie": lines}}
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// stdQuery is what net/url finds for name.
func stdQuery(raw, name string) string {
	return (&url.URL{RawQuery: raw}).Query().Get(name)
}

func TestCookieValue(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{name: "none"},
		{name: "only", lines: []string{"deviceId=abc"}, want: "abc"},
		{name: "among others", lines: []string{"a=1; deviceId=abc; b=2"}, want: "abc"},
		{name: "first of two", lines: []string{"deviceId=first; deviceId=second"}, want: "first"},
		{name: "second line", lines: []string{"a=1", "deviceId=abc"}, want: "abc"},
		{name: "quoted", lines: []string{`deviceId="abc"`}, want: "abc"},
		{name: "spaces around", lines: []string{"  deviceId = abc  ;x=1"}, want: " abc"},
		{name: "invalid value skipped", lines: []string{`deviceId=a\b; deviceId=ok`}, want: "ok"},
		{name: "name is case-sensitive", lines: []string{"deviceid=abc"}},
		{name: "empty value", lines: []string{"deviceId=; deviceId=later"}},
		{name: "no equals", lines: []string{"deviceId"}},
		{name: "too many cookies", lines: []string{strings.Repeat("x=1;", 3000) + "deviceId=abc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cookieValue(tc.lines, "deviceId")
			if got != tc.want {
				t.Errorf("cookieValue(%q, deviceId) = %q, want %q", tc.lines, got, tc.want)
			}
			if std := stdCookie(tc.lines, "deviceId"); got != std {
				t.Errorf("cookieValue(%q, deviceId) = %q, net/http finds %q", tc.lines, got, std)
			}
		})
	}
}

func FuzzCookieValue(f *testing.F) {
	f.Add("a=1; deviceId=abc", "deviceId=x", "deviceId")
	f.Add(`deviceId="a b"`, "", "deviceId")
	f.Add(" ; ;deviceId", "deviceId= =", "deviceId")
	f.Fuzz(func(t *testing.T, line1, line2, name string) {
		if !isToken(name) {
			return // net/http finds no cookie by a name that is not a token
		}
		lines := []string{line1, line2}
		if got, want := cookieValue(lines, name), stdCookie(lines, name); got != want {
			t.Errorf("cookieValue(%q, %q) = %q, net/http finds %q", lines, name, got, want)
		}
	})
}

func TestQueryValue(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{name: "none"},
		{name: "only", raw: "token=abc", want: "abc"},
		{name: "among others", raw: "a=1&token=abc&b=2", want: "abc"},
		{name: "first of two", raw: "token=first&token=second", want: "first"},
		{name: "escaped value", raw: "token=a%20b+c", want: "a b c"},
		{name: "escaped key", raw: "to%6Ben=abc", want: "abc"},
		{name: "bad escape skipped", raw: "token=%zz&token=ok", want: "ok"},
		{name: "semicolon pair skipped", raw: "token=a;b&token=ok", want: "ok"},
		{name: "no value", raw: "token", want: ""},
		{name: "empty pairs", raw: "&&token=abc&", want: "abc"},
		{name: "too many parameters", raw: strings.Repeat("x=1&", 10000) + "token=abc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := queryValue(tc.raw, "token")
			if got != tc.want {
				t.Errorf("queryValue(%q, token) = %q, want %q", tc.raw, got, tc.want)
			}
			if std := stdQuery(tc.raw, "token"); got != std {
				t.Errorf("queryValue(%q, token) = %q, net/url finds %q", tc.raw, got, std)
			}
		})
	}
}

func FuzzQueryValue(f *testing.F) {
	f.Add("a=1&token=abc", "token")
	f.Add("to%6Ben=a+b%20c", "token")
	f.Add("token=%zz;&token", "token")
	f.Add("a+b=1", "a b")
	f.Fuzz(func(t *testing.T, raw, name string) {
		if got, want := queryValue(raw, name), stdQuery(raw, name); got != want {
			t.Errorf("queryValue(%q, %q) = %q, net/url finds %q", raw, name, got, want)
		}
	})
}

func TestAppendValue(t *testing.T) {
	long := strings.Repeat("k", maxKeyValue+1)
	tests := []struct {
		name string
		v    string
		want string
	}{
		{name: "short", v: "abc", want: "=abc"},
		{name: "at bound", v: long[:maxKeyValue], want: "=" + long[:maxKeyValue]},
		{name: "long is hashed", v: long, want: "#9094034fb2d0ce2e407c9b260f2806ab2efb352e200722fd6296d9cf1cf7e6f5"},
		{name: "a brace is hashed", v: "{a}", want: "#460c3a93211614ac783c0f1d1bbbcb45a6da87d6421b5c0771772588f1015ff8"},
		{name: "a closing brace is hashed", v: "a}", want: "#0fa7ca4dfdeb7fefde235a0ce50ae59c80ace983f06497379e3a3f4dc6a1629f"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendValue(nil, tc.v)); got != tc.want {
				t.Errorf("appendValue(%q) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

func TestKeyPrefix(t *testing.T) {
	base := validConfig(func(c *Config) { c.Tag, c.Key = TagHeader, "X-API-Key" })
	tests := []struct {
		name   string
		plugin string
		c      Config
		want   string
	}{
		{name: "rate ip", plugin: "perIP", c: validConfig(nil), want: "httplimit:5:perIP:rate:ip:10000000us:"},
		{name: "rate header", plugin: "k", c: base, want: "httplimit:1:k:rate:header:9:X-API-Key:10000000us:"},
		{name: "inflight ignores interval", plugin: "k", c: validConfig(func(c *Config) { c.Type, c.Interval = TypeInflight, time.Hour }), want: "httplimit:1:k:inflight:ip:"},
		{name: "name with separators", plugin: "a:1:b", c: validConfig(nil), want: "httplimit:5:a:1:b:rate:ip:10000000us:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := keyPrefix(tc.plugin, tc.c); got != tc.want {
				t.Errorf("keyPrefix(%q, %+v) = %q, want %q", tc.plugin, tc.c, got, tc.want)
			}
		})
	}
}
