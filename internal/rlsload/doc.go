// Command rlsload drives a running Rate Limit Service (such as "rlpkit
// serve") with ShouldRateLimit calls over gRPC and reports decisions per
// second and the latency distribution; given the Redis the server uses, it
// also reports the script calls (EVALSHA, EVAL: one round trip each) per
// decision and every command Redis ran, read from INFO commandstats (reset
// before the run). INFO counts the commands a script runs too (GET, SET,
// TIME for limit/redis), so the round trips are the script calls; the
// commands a server sends are pinned in cmd/rlpkit's tests with MONITOR.
//
// Usage:
//
//	rlpkit serve --limits limits.yaml --addr 127.0.0.1:8081 [--redis URL] &
//	go run ./internal/rlsload -addr 127.0.0.1:8081 -duration 10s -concurrency 64 [-redis URL]
//
// Every call carries -descriptors descriptors {user: uN} (then {user: uN,
// n: i} for the others) of domain -domain, the user chosen round robin
// among -users. The limits file decides what the server counts; one whose
// limits apply to "user" and admit the whole run measures the full path:
//
//   - {namespace: load, max_value: 4000000000, seconds: 3600, variables: [user]}
//
// It is a measuring tool for this repository, not a benchmark suite: the
// figures depend on the machine, and client and server share it.
package main
