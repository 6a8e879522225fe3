package main

import (
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseServeEnvironment checks that every flag can come from its RLPKIT_
// variable, that a flag on the command line wins, and that an invalid value
// names the variable it came from.
func TestParseServeEnvironment(t *testing.T) {
	type opts struct {
		Limits, Addr, HTTPAddr, HTTPAddrFlag, Redis, LogFormat string
		ResponseHeaders                                        bool
		RedisTimeout                                           time.Duration
		NearLimitRatio                                         float64
	}
	defaults := opts{Limits: "l.yaml", Addr: "127.0.0.1:8081", HTTPAddr: "127.0.0.1:8080", HTTPAddrFlag: "--http-addr", LogFormat: "text", RedisTimeout: time.Second, NearLimitRatio: 0.8}
	with := func(f func(*opts)) opts { o := defaults; f(&o); return o }
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want opts
		err  string
	}{
		{"defaults", nil, []string{"--limits", "l.yaml"}, defaults, ""},
		{"from the environment", map[string]string{
			"RLPKIT_LIMITS": "l.yaml", "RLPKIT_ADDR": "0.0.0.0:8081", "RLPKIT_HTTP_ADDR": "off", "RLPKIT_REDIS_URL": "redis://r:6379",
			"RLPKIT_LOG_FORMAT": "json", "RLPKIT_RESPONSE_HEADERS": "true", "RLPKIT_REDIS_TIMEOUT": "250ms", "RLPKIT_NEAR_LIMIT_RATIO": "0.5",
		}, nil, opts{Limits: "l.yaml", Addr: "0.0.0.0:8081", HTTPAddr: "off", HTTPAddrFlag: "RLPKIT_HTTP_ADDR", Redis: "redis://r:6379",
			LogFormat: "json", ResponseHeaders: true, RedisTimeout: 250 * time.Millisecond, NearLimitRatio: 0.5}, ""},
		{"the flag wins", map[string]string{"RLPKIT_ADDR": "0.0.0.0:1", "RLPKIT_HTTP_ADDR": "0.0.0.0:2", "RLPKIT_RESPONSE_HEADERS": "true"},
			[]string{"--limits", "l.yaml", "--addr", "127.0.0.1:3", "--http-addr", "127.0.0.1:4", "--response-headers=false"},
			with(func(o *opts) { o.Addr, o.HTTPAddr = "127.0.0.1:3", "127.0.0.1:4" }), ""},
		{"an empty variable is unset", map[string]string{"RLPKIT_ADDR": "", "RLPKIT_LIMITS": ""}, []string{"--limits", "l.yaml"}, defaults, ""},
		{"deprecated --metrics-addr sets the HTTP address", nil, []string{"--limits", "l.yaml", "--metrics-addr", "127.0.0.1:9"},
			with(func(o *opts) { o.HTTPAddr, o.HTTPAddrFlag = "127.0.0.1:9", "--metrics-addr" }), ""},
		{"an invalid value names its variable", map[string]string{"RLPKIT_RESPONSE_HEADERS": "maybe"}, []string{"--limits", "l.yaml"}, opts{},
			`RLPKIT_RESPONSE_HEADERS="maybe": invalid value for --response-headers: parse error`},
		{"an invalid value is checked under its variable's name", map[string]string{"RLPKIT_SHUTDOWN_TIMEOUT": "0s"}, []string{"--limits", "l.yaml"}, opts{},
			"RLPKIT_SHUTDOWN_TIMEOUT 0s: want more than 0"},
		{"a flag replacing an invalid variable", map[string]string{"RLPKIT_LOG_FORMAT": "xml"}, []string{"--limits", "l.yaml", "--log-format", "json"},
			with(func(o *opts) { o.LogFormat = "json" }), ""},
		{"an invalid flag is named as a flag", map[string]string{"RLPKIT_LOG_FORMAT": "json"}, []string{"--limits", "l.yaml", "--log-format", "xml"}, opts{},
			`--log-format "xml": want text or json`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			o, err := parseServe(tc.args, lookup, io.Discard)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("parseServe(%v, %v) error = %v, want %q", tc.args, tc.env, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseServe(%v, %v) error = %v", tc.args, tc.env, err)
			}
			got := opts{o.limitsFile, o.addr, o.httpAddr, o.httpAddrFlag, o.redisURL, o.logFormat, o.responseHeaders, o.storeTimeout, o.nearLimitRatio}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseServe(%v, %v) mismatch (-want +got):\n%s", tc.args, tc.env, diff)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	tests := []struct{ flag, want string }{
		{"addr", "RLPKIT_ADDR"},
		{"http-addr", "RLPKIT_HTTP_ADDR"},
		{"redis", "RLPKIT_REDIS_URL"},
		{"redis-key-prefix", "RLPKIT_REDIS_KEY_PREFIX"},
	}
	for _, tc := range tests {
		if got := envName(tc.flag); got != tc.want {
			t.Errorf("envName(%q) = %q, want %q", tc.flag, got, tc.want)
		}
	}
}
