package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// TestReferenceKeysSettings: RLPKIT_REDIS_KEYS=reference honours the
// reference's counting variables (no warning for them), accepts the
// prefixes the reference accepts, and refuses what it cannot do.
func TestReferenceKeysSettings(t *testing.T) {
	read := func(env map[string]string) (settings, []string, error) {
		return readSettings(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, environ(env))
	}
	env := map[string]string{
		"RLPKIT_REDIS_KEYS": "Reference", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT": "true",
		"EXPIRATION_JITTER_MAX_SECONDS": "20", "CACHE_KEY_PREFIX": "{rl}", "RLPKIT_REDIS_HASH_TAG": "first-entry",
	}
	s, warnings, err := read(env)
	if err != nil {
		t.Fatal(err)
	}
	if s.refKeys.format != envoyratelimit.KeysReference || !s.refKeys.stopIncrement || s.refKeys.jitterMax != 20 || s.cacheKeyPrefix != "{rl}" {
		t.Errorf("settings %+v, prefix %q", s.refKeys, s.cacheKeyPrefix)
	}
	want := []string{"RLPKIT_REDIS_HASH_TAG is ignored with RLPKIT_REDIS_KEYS=reference: the reference's keys carry no hash tag of rlpkit's"}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=false is the reference's
	// default counting here: no warning.
	if _, warnings, err := read(map[string]string{"RLPKIT_REDIS_KEYS": "reference", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT": "false", "EXPIRATION_JITTER_MAX_SECONDS": "1"}); err != nil || len(warnings) != 0 {
		t.Errorf("reference keys with the reference's defaults: warnings %q, error %v; want none", warnings, err)
	}
	if s, _, err := read(map[string]string{}); err != nil || s.refKeys.format != envoyratelimit.KeysRLPKit || s.refKeys.stopIncrement {
		t.Errorf("default: %+v, %v; want rlpkit's keys", s.refKeys, err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"RLPKIT_REDIS_KEYS": "envoy"}, `RLPKIT_REDIS_KEYS="envoy": want one of rlpkit, reference`},
		{map[string]string{"RLPKIT_REDIS_KEYS": "reference", "BACKEND_TYPE": "memory"}, "RLPKIT_REDIS_KEYS=reference: the reference's keys are Redis keys; it needs BACKEND_TYPE=redis, not memory"},
		{map[string]string{"RLPKIT_REDIS_KEYS": "reference", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT": "yes"}, `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT="yes": want true or false`},
		{map[string]string{"RLPKIT_REDIS_KEYS": "rlpkit", "CACHE_KEY_PREFIX": "{rl}"}, `CACHE_KEY_PREFIX="{rl}": must not contain '{' or '}'`},
	} {
		_, _, err := read(tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.env, err, tc.want)
		} else if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
			t.Errorf("%v: %d errors, want one:\n%v", tc.env, n, err)
		}
	}
}
