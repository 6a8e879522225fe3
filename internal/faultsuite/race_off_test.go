//go:build !race

package faultsuite

// raceEnabled builds the servers with the race detector, as the tests run.
const raceEnabled = false
