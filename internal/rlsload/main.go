package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"time"
)

// envoyWindow is Envoy's default HTTP/2 window for a stream and for a
// connection (256 MiB), and minWindow the smallest HTTP/2 allows a client
// to set with grpc-go (64 KiB).
const (
	envoyWindow = 256 << 20
	minWindow   = 64 << 10
)

// minRate and maxRate bound -rate, when it is not 0: a call every 1,000
// seconds, a call a nanosecond (so that the time between slots is a
// time.Duration).
const (
	minRate = 1e-3
	maxRate = 1e9
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the load and prints the report; it returns the exit
// status: 0, 1 when the run failed, 2 for a bad command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("rlsload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8081", "the server's gRPC `address`")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long to send calls, after the warm-up")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "calls sent first and not measured")
	fs.IntVar(&c.concurrency, "concurrency", 64, "calls in flight at once")
	fs.IntVar(&c.conns, "conns", 2, "gRPC connections the calls are spread over (Envoy opens one per worker thread)")
	var window int
	fs.IntVar(&window, "window", envoyWindow, "the client's HTTP/2 stream and connection flow control windows in bytes, as Envoy's initial_stream_window_size and initial_connection_window_size; 0: grpc-go's, which it grows with bandwidth-estimating PINGs that Envoy does not send")
	fs.IntVar(&c.users, "users", 1000, "distinct values of the user entry")
	fs.IntVar(&c.descriptors, "descriptors", 1, "descriptors per call")
	fs.StringVar(&c.domain, "domain", "load", "the request domain")
	fs.DurationVar(&c.timeout, "timeout", time.Second, "deadline of each call")
	fs.StringVar(&c.redisURL, "redis", "", "the server's Redis `URL`s, comma-separated (a Cluster's masters): report their commands, and their CPU time when they run on this machine, per decision, added up")
	fs.IntVar(&c.serverPID, "pid", 0, "the server's process `id`: report its CPU time per decision and its resident set (VmRSS, VmHWM) at the end")
	fs.Float64Var(&c.rate, "rate", 0, "calls per second to offer, spread evenly over the -concurrency callers, latency counted from each call's slot; 0: a closed loop, each caller sending its next call when its last is answered")
	fs.IntVar(&c.calls, "calls", 0, "end the measured phase after this many calls, if -duration has not passed first (0: at -duration)")
	var bins, serveArgs string
	var cmp comparison
	fs.StringVar(&bins, "compare", "", "comma-separated server `binaries` to start and compare in interleaved rounds, instead of -addr and -pid")
	fs.StringVar(&serveArgs, "serve-args", "serve --http-addr 127.0.0.1:0 --limits limits.yaml", "the `arguments` each -compare binary is started with, space-separated; --addr is added")
	fs.IntVar(&cmp.rounds, "rounds", 3, "rounds of -compare")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || c.concurrency < 1 || c.conns < 1 || c.users < 1 || c.descriptors < 1 || c.duration <= 0 || c.warmup < 0 || c.calls < 0 || c.rate != 0 && !(c.rate >= minRate && c.rate <= maxRate) ||
		window != 0 && (window < minWindow || window > math.MaxInt32) {
		fmt.Fprintf(stderr, "rlsload: want no arguments, positive -concurrency, -conns, -users, -descriptors and -duration, -calls 0 or more, -rate 0 or from %g to %g, and -window 0 or from %d to %d\n", minRate, maxRate, minWindow, math.MaxInt32)
		return 2
	}
	c.window = int32(window)
	if bins != "" {
		cmp.bins, cmp.serveArgs = strings.Split(bins, ","), strings.Fields(serveArgs)
		if cmp.rounds < 1 || isSet(fs, "addr") || c.serverPID != 0 {
			fmt.Fprintln(stderr, "rlsload: -compare starts the servers itself: want no -addr or -pid, and positive -rounds")
			return 2
		}
		if err := cmp.run(ctx, c, stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	r, err := load(ctx, c)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	r.print(stdout)
	return 0
}

// isSet reports whether flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
