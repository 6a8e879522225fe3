package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// startTimeout bounds how long a started server may take to listen, and
// stopTimeout how long it may take to stop after SIGTERM.
const (
	startTimeout = 15 * time.Second
	stopTimeout  = 10 * time.Second
)

// comparison runs several server binaries with the same arguments, one at
// a time, in interleaved rounds (A B, B A, A B, ...), so that a change of
// the machine's load during the run weighs on each alike.
type comparison struct {
	bins      []string
	serveArgs []string // given to each binary, before "--addr ADDR"
	rounds    int
}

// run measures every binary c.rounds times with load config lc and prints
// each run, then the medians and their ratios to the first binary's.
func (cmp comparison) run(ctx context.Context, lc config, w io.Writer) error {
	reports := make([][]*report, len(cmp.bins))
	for round := range cmp.rounds {
		order := make([]int, len(cmp.bins))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			r, err := measureBinary(ctx, lc, cmp.bins[i], cmp.serveArgs)
			if err != nil {
				return err
			}
			reports[i] = append(reports[i], r)
			fmt.Fprintf(w, "round %d  %-24s %s\n", round+1, cmp.name(i), summary(r))
		}
	}
	fmt.Fprintln(w)
	printMedians(w, cmp, reports)
	return nil
}

func (cmp comparison) name(i int) string {
	return fmt.Sprintf("%c=%s", 'A'+i, filepath.Base(cmp.bins[i]))
}

// measureBinary starts bin with args and "--addr ADDR" on a free loopback
// port, drives it as load does, measuring its CPU time, and stops it.
func measureBinary(ctx context.Context, lc config, bin string, args []string) (*report, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, append(slices.Clip(args), "--addr", addr)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rlsload: start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			cmd.Process.Kill()
			<-exited
		}
	}
	if err := waitListening(addr, exited); err != nil {
		stop()
		if errors.Is(err, errExited) {
			err = fmt.Errorf("%w: %v", err, waitErr)
		}
		return nil, fmt.Errorf("rlsload: %s %v: %w; its output:\n%s", bin, args, err, out.String())
	}
	lc.addr, lc.serverPID = addr, cmd.Process.Pid
	r, err := load(ctx, lc)
	stop()
	if err != nil {
		return nil, fmt.Errorf("rlsload: %s: %w; its output:\n%s", bin, err, out.String())
	}
	return r, nil
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("rlsload: %w", err)
	}
	defer lis.Close()
	return lis.Addr().String(), nil
}

var errExited = errors.New("exited before listening")

// waitListening waits until addr accepts connections, the process exits or
// startTimeout passes.
func waitListening(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			return errExited
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s after %v", addr, startTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// summary is one run on one line.
func summary(r *report) string {
	s := fmt.Sprintf("%6.0f/s  p50 %-9v p99 %-9v", float64(r.calls)/r.elapsed.Seconds(), r.percentile(50).Round(time.Microsecond), r.percentile(99).Round(time.Microsecond))
	if r.serverCPU > 0 {
		s += fmt.Sprintf("  server %5.1f us", r.perDecision(r.serverCPU))
	}
	if r.redisCPU > 0 {
		s += fmt.Sprintf("  redis %5.1f us", r.perDecision(r.redisCPU))
	}
	if r.redis != nil {
		scripts, commands := r.scripts()
		n := float64(max(r.calls, 1))
		s += fmt.Sprintf("  commands %.2f  scripts %.2f", float64(commands)/n, float64(scripts)/n)
		if r.redis.reads >= 0 {
			s += fmt.Sprintf("  reads %.2f", float64(r.redis.reads)/n)
		}
	}
	if failed := r.calls - r.ok - r.over; failed > 0 {
		s += fmt.Sprintf("  FAILED %d %v", failed, r.errors)
	}
	return s
}

// metric is one row of the medians table.
type metric struct {
	name string
	of   func(*report) float64
	ok   func(*report) bool // whether the run measured it
}

var metrics = []metric{
	{"decisions/s", func(r *report) float64 { return float64(r.calls) / r.elapsed.Seconds() }, always},
	{"p50 latency (us)", func(r *report) float64 { return float64(r.percentile(50).Microseconds()) }, always},
	{"p99 latency (us)", func(r *report) float64 { return float64(r.percentile(99).Microseconds()) }, always},
	{"server CPU per decision (us)", func(r *report) float64 { return r.perDecision(r.serverCPU) }, func(r *report) bool { return r.serverCPU > 0 }},
	{"Redis CPU per decision (us)", func(r *report) float64 { return r.perDecision(r.redisCPU) }, func(r *report) bool { return r.redisCPU > 0 }},
	{"server + Redis CPU per decision (us)", func(r *report) float64 { return r.perDecision(r.serverCPU + r.redisCPU) }, func(r *report) bool { return r.serverCPU > 0 && r.redisCPU > 0 }},
	{"Redis commands per decision", func(r *report) float64 { _, c := r.scripts(); return float64(c) / float64(max(r.calls, 1)) }, func(r *report) bool { return r.redis != nil }},
	{"Redis script calls per decision", func(r *report) float64 { s, _ := r.scripts(); return float64(s) / float64(max(r.calls, 1)) }, func(r *report) bool { return r.redis != nil }},
	{"Redis reads (round trips) per decision", func(r *report) float64 { return float64(r.redis.reads) / float64(max(r.calls, 1)) }, func(r *report) bool { return r.redis != nil && r.redis.reads >= 0 }},
}

func always(*report) bool { return true }

// printMedians prints, as a Markdown table, each metric's median over the
// rounds per binary and its ratio to the first binary's median.
func printMedians(w io.Writer, cmp comparison, reports [][]*report) {
	fmt.Fprintf(w, "medians of %d rounds | ", cmp.rounds)
	for i := range cmp.bins {
		fmt.Fprintf(w, "%s | ", cmp.name(i))
	}
	for i := 1; i < len(cmp.bins); i++ {
		fmt.Fprintf(w, "%c/A | ", 'A'+i)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "---")
	for range 2*len(cmp.bins) - 1 {
		fmt.Fprint(w, " | ---")
	}
	fmt.Fprintln(w)
	for _, m := range metrics {
		if !m.ok(reports[0][0]) {
			continue
		}
		meds := make([]float64, len(cmp.bins))
		for i, rs := range reports {
			meds[i] = median(rs, m.of)
		}
		fmt.Fprintf(w, "%s | ", m.name)
		for _, v := range meds {
			fmt.Fprintf(w, "%s | ", format(v))
		}
		for _, v := range meds[1:] {
			if meds[0] == 0 {
				fmt.Fprint(w, "- | ")
			} else {
				fmt.Fprintf(w, "%.2f | ", v/meds[0])
			}
		}
		fmt.Fprintln(w)
	}
}

func format(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// median returns the median of f over rs (the lower middle for an even
// count).
func median(rs []*report, f func(*report) float64) float64 {
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[(len(vs)-1)/2]
}
