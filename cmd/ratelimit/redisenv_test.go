package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readEnv(env map[string]string) (settings, []string, error) {
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return readSettings(lookup, environ(env))
}

func TestRedisSettingsErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"pool CREATE", map[string]string{"REDIS_POOL_ON_EMPTY_BEHAVIOR": "create"}, "REDIS_POOL_ON_EMPTY_BEHAVIOR=create is not supported"},
		{"pool ERROR", map[string]string{"REDIS_POOL_ON_EMPTY_BEHAVIOR": "ERROR"}, "REDIS_POOL_ON_EMPTY_BEHAVIOR=ERROR is not supported"},
		{"per-second pool CREATE", map[string]string{"REDIS_PERSECOND": "true", "REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR": "CREATE"}, "REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR=CREATE is not supported"},
		{"negative parallelism", map[string]string{"REDIS_CLUSTER_PIPELINE_PARALLELISM": "-1"}, `REDIS_CLUSTER_PIPELINE_PARALLELISM="-1": want a whole number from 0 to`},
		{"per-second parallelism", map[string]string{"REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM": "x"}, `REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM="x": want a whole number`},
		{"window", map[string]string{"REDIS_PIPELINE_WINDOW": "150"}, `REDIS_PIPELINE_WINDOW="150": want a duration such as 0, 500us or 10s`},
		{"negative window", map[string]string{"REDIS_PERSECOND_PIPELINE_WINDOW": "-1ms"}, `REDIS_PERSECOND_PIPELINE_WINDOW="-1ms": want a duration`},
		{"pipeline limit", map[string]string{"REDIS_PIPELINE_LIMIT": "-4"}, `REDIS_PIPELINE_LIMIT="-4": want a whole number from 0 to`},
		{"per-second type", map[string]string{"REDIS_PERSECOND_TYPE": "ring"}, `REDIS_PERSECOND_TYPE="ring": want one of single, sentinel, cluster`},
		{"per-second timeout", map[string]string{"REDIS_PERSECOND_TIMEOUT": "0s"}, `REDIS_PERSECOND_TIMEOUT="0s": want a positive duration`},
		{"per-second flag", map[string]string{"REDIS_PERSECOND": "yes"}, `REDIS_PERSECOND="yes": want true or false`},
		{"startup interval", map[string]string{"REDIS_STARTUP_INITIAL_INTERVAL": "0"}, `REDIS_STARTUP_INITIAL_INTERVAL="0": want a positive duration`},
		{"startup elapsed", map[string]string{"REDIS_STARTUP_MAX_ELAPSED_TIME": "-1s"}, `REDIS_STARTUP_MAX_ELAPSED_TIME="-1s": want a duration`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := readEnv(tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readSettings(%v) = %v, want an error containing %q", tc.env, err, tc.want)
			}
		})
	}
}

// TestPoolOnEmptyOnlyWhereUsed: as the reference, which checks the
// variable when it builds the pool, CREATE and ERROR stop the process only
// for a Redis in use; another value than WAIT, CREATE or ERROR is reported
// and waits.
func TestPoolOnEmptyOnlyWhereUsed(t *testing.T) {
	for _, env := range []map[string]string{
		{"BACKEND_TYPE": "memory", "REDIS_POOL_ON_EMPTY_BEHAVIOR": "CREATE"},
		{"REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR": "ERROR"},
		{"REDIS_POOL_ON_EMPTY_BEHAVIOR": "wait", "REDIS_PERSECOND": "true", "REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR": "Wait"},
	} {
		if _, warnings, err := readEnv(env); err != nil || len(warnings) != 0 {
			t.Errorf("readSettings(%v) = %v, warnings %q; want neither", env, err, warnings)
		}
	}
	_, warnings, err := readEnv(map[string]string{"REDIS_POOL_ON_EMPTY_BEHAVIOR": "BLOCK"})
	want := []string{`REDIS_POOL_ON_EMPTY_BEHAVIOR="BLOCK" is not one of WAIT, CREATE, ERROR: the pool waits for a connection when all are in use (WAIT), as envoyproxy/ratelimit's`}
	if diff := cmp.Diff(want, warnings); err != nil || diff != "" {
		t.Errorf("REDIS_POOL_ON_EMPTY_BEHAVIOR=BLOCK: %v, warnings (-want +got):\n%s", err, diff)
	}
}

func TestRedisSettingsRead(t *testing.T) {
	s, warnings, err := readEnv(map[string]string{
		"REDIS_TYPE": "cluster", "REDIS_POOL_SIZE": "8", "REDIS_PIPELINE_WINDOW": "150us", "REDIS_PIPELINE_LIMIT": "16",
		"REDIS_CLUSTER_PIPELINE_PARALLELISM": "0", "REDIS_SENTINEL_AUTH": "u:p",
		"REDIS_PERSECOND": "true", "REDIS_PERSECOND_TYPE": "sentinel", "REDIS_PERSECOND_URL": "m,h:1", "REDIS_PERSECOND_SOCKET_TYPE": "tcp",
		"REDIS_PERSECOND_POOL_SIZE": "3", "REDIS_PERSECOND_AUTH": "pw", "REDIS_PERSECOND_SENTINEL_AUTH": "spw", "REDIS_PERSECOND_TLS": "true",
		"REDIS_PERSECOND_TIMEOUT": "2s", "REDIS_PERSECOND_PIPELINE_WINDOW": "1ms", "REDIS_PERSECOND_PIPELINE_LIMIT": "2",
		"REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM": "5",
		"REDIS_STARTUP_INITIAL_INTERVAL":               "2s", "REDIS_STARTUP_MAX_INTERVAL": "1m", "REDIS_STARTUP_MAX_ELAPSED_TIME": "5m",
	})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("readSettings: %v, warnings %q", err, warnings)
	}
	m := s.mainConn()
	if got, want := []any{m.typ, m.window, m.limit, m.pipelines(), m.sentinelAuth}, []any{"cluster", 150 * time.Microsecond, 16, 8, "u:p"}; !cmp.Equal(got, want) {
		t.Errorf("main Redis: %v, want %v", got, want)
	}
	p := s.redis.perSecondConn
	got := []any{s.redis.perSecond, p.typ, p.url, p.socketType, p.poolSize, p.auth, p.sentinelAuth, p.tls, p.timeout, p.window, p.limit, p.pipelines()}
	want := []any{true, "sentinel", "m,h:1", "tcp", 3, "pw", "spw", true, 2 * time.Second, time.Millisecond, 2, 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-second Redis (-want +got):\n%s", diff)
	}
	if want := (startupSettings{initial: 2 * time.Second, max: time.Minute, maxElapsed: 5 * time.Minute}); s.redis.startup != want {
		t.Errorf("startup %+v, want %+v", s.redis.startup, want)
	}
	d, _, _ := readEnv(nil)
	if want := (startupSettings{initial: time.Second, max: 30 * time.Second}); d.redis.startup != want || d.redis.perSecond || d.mainConn().pipelines() != 1 || d.mainConn().limit != 0 || d.mainConn().window != 0 {
		t.Errorf("defaults: %+v", d.redis)
	}
}

// TestClusterPipelineParallelism: on a Cluster, the pipelines in flight
// are REDIS_CLUSTER_PIPELINE_PARALLELISM bounded by the pool, as the
// reference bounds its parallel groups; elsewhere one.
func TestClusterPipelineParallelism(t *testing.T) {
	for _, tc := range []struct {
		typ               string
		parallelism, pool int
		want              int
	}{
		{"cluster", 1, 10, 1}, {"cluster", 0, 10, 10}, {"cluster", 4, 10, 4}, {"cluster", 40, 10, 10},
		{"single", 4, 10, 1}, {"sentinel", 0, 10, 1},
	} {
		c := redisConn{typ: tc.typ, parallelism: tc.parallelism, poolSize: tc.pool}
		if got := c.pipelines(); got != tc.want {
			t.Errorf("%s, parallelism %d, pool %d: %d pipelines, want %d", tc.typ, tc.parallelism, tc.pool, got, tc.want)
		}
	}
}
