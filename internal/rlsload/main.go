package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
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
	fs.IntVar(&c.conns, "conns", 2, "gRPC connections the calls are spread over")
	fs.IntVar(&c.users, "users", 1000, "distinct values of the user entry")
	fs.IntVar(&c.descriptors, "descriptors", 1, "descriptors per call")
	fs.StringVar(&c.domain, "domain", "load", "the request domain")
	fs.DurationVar(&c.timeout, "timeout", time.Second, "deadline of each call")
	fs.StringVar(&c.redisURL, "redis", "", "the server's Redis `URL`: report its commands per decision")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || c.concurrency < 1 || c.conns < 1 || c.users < 1 || c.descriptors < 1 || c.duration <= 0 || c.warmup < 0 {
		fmt.Fprintln(stderr, "rlsload: want no arguments and positive -concurrency, -conns, -users, -descriptors and -duration")
		return 2
	}
	r, err := load(ctx, c)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	r.print(stdout)
	return 0
}
