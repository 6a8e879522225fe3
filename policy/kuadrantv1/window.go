package kuadrantv1

import (
	"regexp"
	"time"
)

// windowRE is the CRD's pattern of a rate's window.
var windowRE = regexp.MustCompile(`^([0-9]{1,5}(h|m|s|ms)){1,4}$`)

// WindowSeconds returns a window's length in whole seconds, as kuadrant-operator computes
// it: time.ParseDuration, truncated (500ms is 0, 1m30s is 90). It returns false for a
// window that does not match the CRD's pattern.
func WindowSeconds(window string) (int64, bool) {
	if !windowRE.MatchString(window) {
		return 0, false
	}
	d, err := time.ParseDuration(window)
	if err != nil {
		return 0, false
	}
	return int64(d / time.Second), true
}
