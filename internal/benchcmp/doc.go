// Package benchcmp compares rlpkit's limiters with their peers in one run:
// the single-key token bucket against golang.org/x/time/rate, and the keyed
// in-memory decision against a map lookup plus one clock read. It is a
// module of its own so that the main module does not depend on x/time.
//
// Run it with
//
//	cd internal/benchcmp && go test -run=^$ -bench=. -benchmem .
//
// Its test also shows x/time/rate admitting every request when fed
// alternating stale timestamps, where rlpkit's token bucket admits what the
// elapsed time allows.
package benchcmp
