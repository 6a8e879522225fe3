// Command rlsload drives a running Rate Limit Service (such as "rlpkit
// serve") with ShouldRateLimit calls over gRPC and reports decisions per
// second and the latency distribution; given the Redis the server uses, it
// also reports the script calls (EVALSHA, EVAL) per decision, every command
// Redis ran, read from INFO commandstats, and the reads Redis made from its
// clients' sockets (INFO stats' total_reads_processed), all reset before the
// run. INFO counts the commands a script runs too (GET, SET, TIME for
// limit/redis). A pipeline is one read however many script calls it
// carries, so the round trips are the reads, not the script calls: a store
// that pipelines one script call per request makes fewer round trips than
// script calls. Each round trip costs Redis an event-loop turn and system
// calls whatever it carries. The commands a server sends are pinned in
// cmd/rlpkit's tests with MONITOR.
//
// With -pid, the server's process id, it reports the server's CPU time
// (user plus system, from /proc/PID/stat) per decision and, at the end, its
// resident set (VmRSS, and its peak VmHWM, from /proc/PID/status); -calls N
// ends the measured phase after N calls (1,000,000 over -users 100000
// measures a server's memory after a million requests over 100,000 keys);
// with -redis naming
// a redis-server on this machine (INFO server's process_id), Redis's too.
// On a machine the client, the server and Redis share, throughput follows
// their total CPU per decision, so these figures compare servers better
// than decisions per second do.
//
// A process's CPU per decision also depends on its load, though: each time
// it runs out of work, sleeps and is woken costs it CPU whatever the work,
// so the fewer decisions between two sleeps, the more each costs. With
// -concurrency calls in flight in a closed loop (the default, each caller
// sending its next call when its last is answered), a faster server also
// gets more calls per wake-up. -rate R offers R calls per second instead,
// evenly spaced over the callers, at most -concurrency in flight: two
// servers compared at a rate both sustain do the same work in the same time,
// and the difference in their CPU per decision is what each spends, on its
// work and its wake-ups. A call's latency is then counted from its slot, so
// a server that falls behind shows it.
//
// Usage:
//
//	rlpkit serve --limits limits.yaml --addr 127.0.0.1:8081 [--redis URL] &
//	go run ./internal/rlsload -addr 127.0.0.1:8081 -pid $! -duration 10s -concurrency 64 [-redis URL]
//
// -compare A,B starts each server binary itself, with the arguments of
// -serve-args and "--addr" a free loopback port, in interleaved rounds (A
// B, then B A, ...; -rounds), so that a change of the machine's load weighs
// on both alike, and prints each run, then the medians per binary and their
// ratios to A's as a Markdown table:
//
//	go run ./internal/rlsload -compare /tmp/rlpkit-old,/tmp/rlpkit-new -rounds 3 \
//	    -serve-args "serve --http-addr 127.0.0.1:0 --limits limits.yaml --redis redis://127.0.0.1:6379" \
//	    -redis redis://127.0.0.1:6379 -duration 10s -concurrency 32
//
// The calls are spread over -conns HTTP/2 connections (2 by default), as
// Envoy opens one per worker thread to a Rate Limit Service cluster, and the
// client's flow control windows are Envoy's defaults (-window, 256 MiB): with
// grpc-go's own, the client would send the server bandwidth-estimating PINGs
// Envoy never sends, and the server's CPU would pay for answering them.
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
