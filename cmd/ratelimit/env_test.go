package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/rls"
)

func TestReadSettingsErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bad port", map[string]string{"GRPC_PORT": "80x"}, `GRPC_PORT="80x": want a whole number from 0 to 65535`},
		{"bad bool", map[string]string{"RUNTIME_WATCH_ROOT": "maybe"}, `RUNTIME_WATCH_ROOT="maybe": want true or false`},
		{"bad backend", map[string]string{"BACKEND_TYPE": "etcd"}, `BACKEND_TYPE="etcd": want one of redis, memory, memcache`},
		{"bad redis type", map[string]string{"REDIS_TYPE": "ring"}, `REDIS_TYPE="ring": want one of single, sentinel, cluster`},
		{"bad timeout", map[string]string{"REDIS_TIMEOUT": "10"}, `REDIS_TIMEOUT="10": want a positive duration such as 10s or 500ms`},
		{"bad ratio", map[string]string{"NEAR_LIMIT_RATIO": "1.5"}, `NEAR_LIMIT_RATIO="1.5": want a number above 0 and at most 1`},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, `LOG_LEVEL="loud": want one of DEBUG, INFO, WARN, WARNING, ERROR, TRACE, FATAL, PANIC`},
		{"prefix with brace", map[string]string{"CACHE_KEY_PREFIX": "a{b"}, `CACHE_KEY_PREFIX="a{b": must not contain '{' or '}'`},
		{"tls without files", map[string]string{"GRPC_SERVER_USE_TLS": "true"}, "GRPC_SERVER_USE_TLS=true needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY"},
		{"bad tags", map[string]string{"EXTRA_TAGS": "a:b,c"}, `EXTRA_TAGS="a:b,c": want key:value pairs separated by commas`},
		{"config type", map[string]string{"CONFIG_TYPE": "GRPC_XDS_DELTA"}, `CONFIG_TYPE="GRPC_XDS_DELTA": want one of FILE, GRPC_XDS_SOTW`},
		{"xds headers", map[string]string{"CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS": "a:b,c"}, `CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS="a:b,c": want key:value pairs separated by commas`},
		{"xds retry", map[string]string{"CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL": "3"}, `CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL="3": want a positive duration`},
		{"xds client cert alone", map[string]string{"CONFIG_GRPC_XDS_CLIENT_TLS_CERT": "c.pem"}, "CONFIG_GRPC_XDS_CLIENT_TLS_CERT and CONFIG_GRPC_XDS_CLIENT_TLS_KEY: set both or neither"},
		{"xds max msg", map[string]string{"XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES": "4MiB"}, `XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES="4MiB": want a whole number`},
		{"negative cap", map[string]string{"RLPKIT_MAX_DESCRIPTORS_PER_REQUEST": "-1"}, `RLPKIT_MAX_DESCRIPTORS_PER_REQUEST="-1": want a whole number from 1 to 2147483647`},
		{"zero cap", map[string]string{"RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR": "0"}, `RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR="0": want a whole number from 1 to 2147483647`},
		{"cap not a number", map[string]string{"RLPKIT_MAX_KEY_BYTES_PER_REQUEST": "256KiB"}, `RLPKIT_MAX_KEY_BYTES_PER_REQUEST="256KiB": want a whole number from 1 to 2147483647`},
		{"bad hash tag", map[string]string{"RLPKIT_REDIS_HASH_TAG": "tenant"}, `RLPKIT_REDIS_HASH_TAG="tenant": want one of domain, first-entry`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			_, _, err := readSettings(lookup, environ(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readSettings(%v) = %v, want an error containing %q", tc.env, err, tc.want)
			}
		})
	}
}

func TestReadSettingsDefaults(t *testing.T) {
	s, warnings, err := readSettings(func(string) (string, bool) { return "", false }, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{s.runtimeRoot, s.runtimeAppDirectory, s.runtimeWatchRoot, s.grpcHost, s.grpcPort, s.port, s.debugPort,
		s.backendType, s.redisSocketType, s.redisURL, s.redisType, s.redisPoolSize, s.redisTimeout.String(), s.nearLimitRatio,
		s.useStatsd, s.statsdPort, s.prometheusAddr, s.headerLimit, s.logLevel.String(), len(warnings), s.caps}
	want := []any{"/srv/runtime_data/current", "config", true, "0.0.0.0", 8081, 8080, 6070,
		"redis", "unix", "/var/run/nutcracker/ratelimit.sock", "single", 10, "10s", 0.8,
		true, 8125, ":9090", "RateLimit-Limit", "WARN", 0, rls.RequestCaps{MaxDescriptors: 1024, MaxEntries: 64, MaxKeyBytes: 262144}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestReadSettingsWarnings(t *testing.T) {
	env := map[string]string{"REDIS_POOL_ON_EMPTY_WAIT_DURATION": "1s", "USE_DOG_STATSD": "true", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT": "false", "log_level": "x"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	_, warnings, err := readSettings(lookup, environ(env))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"REDIS_POOL_ON_EMPTY_WAIT_DURATION is not implemented and is ignored: envoyproxy/ratelimit does not read it either: its pool always waits (REDIS_POOL_ON_EMPTY_BEHAVIOR=WAIT)",
		"STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=false is not honoured: a rejected request counts only on the counters it is over, as with true; the others do not move here",
		"USE_DOG_STATSD is not implemented and is ignored: plain statsd, tags in the name as gostats writes them",
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestRunExitsOnBadEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"invalid value", map[string]string{"PORT": "-1"}, `PORT="-1": want a whole number from 0 to 65535`},
		{"memcache", map[string]string{"BACKEND_TYPE": "memcache"}, "BACKEND_TYPE=memcache: memcache is not offered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr syncBuffer
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			if code := run(t.Context(), lookup, environ(tc.env), &stderr, nil); code != 1 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("run(%v) = %d, stderr %q; want 1 and %q", tc.env, code, stderr.String(), tc.want)
			}
		})
	}
}

func TestUnimplementedReportedOnceAtStart(t *testing.T) {
	env := baseEnv(t.TempDir())
	env["REDIS_POOL_ON_EMPTY_WAIT_DURATION"] = "1s"
	s := start(t, env)
	if n := strings.Count(s.log.String(), "REDIS_POOL_ON_EMPTY_WAIT_DURATION is not implemented"); n != 1 {
		t.Errorf("warning logged %d times, want once:\n%s", n, s.log)
	}
}

// Every variable the reference reads is read here or, when set, reported
// at start with what happens instead.
func TestEveryReferenceVariableIsKnown(t *testing.T) {
	data, err := os.ReadFile("testdata/envoy-ratelimit-variables.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range strings.Split(string(data), "\n") {
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		n++
		_, read := implemented[name]
		_, reported := notImplemented[name]
		if read == reported {
			t.Errorf("%s: read %v, reported as not implemented %v; want exactly one", name, read, reported)
		}
	}
	if n < 100 {
		t.Errorf("only %d variables listed", n)
	}
}

func TestStatsFlushInterval(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{map[string]string{}, 10 * time.Second},
		{map[string]string{"STATS_FLUSH_INTERVAL": "2s"}, 2 * time.Second},
		{map[string]string{"STATS_FLUSH_INTERVAL": "2s", "GOSTATS_FLUSH_INTERVAL_SECONDS": "1"}, time.Second},
	} {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		s, _, err := readSettings(lookup, environ(tc.env))
		if err != nil || s.statsFlush != tc.want {
			t.Errorf("readSettings(%v): flush %v, %v; want %v", tc.env, s.statsFlush, err, tc.want)
		}
	}
}

// TestReadSettingsNotReference: variables that envoyproxy/ratelimit does
// not read either are reported with what it does instead.
func TestReadSettingsNotReference(t *testing.T) {
	env := map[string]string{"GLOBAL_SHADOW_MODE": "true", "LOG_TIMESTAMP_FORMAT": "2006"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, warnings, err := readSettings(lookup, environ(env))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GLOBAL_SHADOW_MODE is not a variable of envoyproxy/ratelimit and is ignored: the global shadow mode is SHADOW_MODE",
		"LOG_TIMESTAMP_FORMAT is not a variable of envoyproxy/ratelimit and is ignored: LOG_FORMAT=json writes @timestamp in RFC 3339 with nanoseconds, as the reference does",
	}
	if diff := cmp.Diff(want, warnings); diff != "" || s.shadowMode {
		t.Errorf("warnings (-want +got):\n%s\nshadow mode %v, want off", diff, s.shadowMode)
	}
	for name := range notReference {
		if _, ok := implemented[name]; ok {
			t.Errorf("%s is both read and reported as not a variable of the reference", name)
		}
		if _, ok := notImplemented[name]; ok {
			t.Errorf("%s is both not implemented and not a variable of the reference", name)
		}
	}
	for name := range notImplemented {
		if _, ok := implemented[name]; ok {
			t.Errorf("%s is both read and reported as not implemented", name)
		}
	}
}
