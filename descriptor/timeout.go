package descriptor

import (
	"math"
	"time"
)

// DefaultTimeout is the rate-limit call timeout of a PluginConfig without Timeout. Envoy's
// own rate-limit filter defaults to 20ms; a filter that crosses the proxy-wasm boundary
// twice per call gets more room.
const DefaultTimeout = 100 * time.Millisecond

// CallTimeout returns the configured rate-limit call timeout, truncated to whole
// milliseconds, or DefaultTimeout when unset. It returns DefaultTimeout for a Timeout that
// Validate rejects.
func (c *PluginConfig) CallTimeout() time.Duration {
	if c.Timeout == "" {
		return DefaultTimeout
	}
	d, ok := parseTimeout(c.Timeout)
	if !ok {
		return DefaultTimeout
	}
	return d
}

// parseTimeout parses and checks a Timeout.
func parseTimeout(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Millisecond || d/time.Millisecond > math.MaxUint32 {
		return 0, false
	}
	return d.Truncate(time.Millisecond), true
}

func validateTimeout(c *errs, s string) {
	if s == "" {
		return
	}
	if _, ok := parseTimeout(s); !ok {
		c.add("timeout", "invalid duration "+quote(s)+`: must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`)
	}
}
