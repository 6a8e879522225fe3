package rls

// raceEnabled reports whether the tests run under the race detector (see
// race_test.go).
var raceEnabled bool
