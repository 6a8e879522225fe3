package envoyratelimit

import (
	"errors"
	"testing"
)

// FuzzLoad checks that no input makes Load panic, and that every error it
// returns is a located *LoadError.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{evalConfig, matchConfig, "", "domain: d\n", "domain: [", "domain: d\ndescriptors: [a, 1.5]\n",
		"domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: x, replaces: [{}], unlimited: true}\n",
		// Bombs: an alias cycle, nesting through aliases, a window that wraps.
		"domain: d\ndescriptors: &a\n- key: k\n  descriptors: *a\n",
		"domain: d\ndescriptors:\n- &k {key: k, descriptors: [{key: j, descriptors: [*k]}]}\n",
		"domain: d\ndescriptors:\n- {key: k, rate_limit: {unit: year, unit_multiplier: 585, requests_per_unit: 1}}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := Load([]File{{Key: "config.f", Data: []byte(s)}}, LoadOptions{})
		if err == nil {
			_ = cfg.Dump()
			return
		}
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			var le *LoadError
			if !errors.As(e, &le) || le.File != "config.f" {
				t.Fatalf("Load error %v is not a *LoadError of config.f", e)
			}
		}
	})
}
