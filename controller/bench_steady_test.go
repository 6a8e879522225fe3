package controller

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// BenchmarkSteadyState is the first sync of a large cluster: $RLPKIT_SCALE_ROUTES (10,000
// unless set) HTTPRoutes with a policy each on one Gateway, created before the controller
// starts; then cmd/rlpkit-controller runs as a process of its own against the test API
// server until every status is correct and the output complete (steadyCheck), and it is
// steady: an event that changes nothing brings no write. It reports the seconds from the
// controller's start to steady state (s-to-steady, to the second at which its last write
// was seen), its peak resident memory (peak-RSS-MiB, the kernel's VmHWM) and its write
// requests. Run it alone, once:
//
//	KUBEBUILDER_ASSETS=$(.ci/envtest-assets.sh) go test ./controller -run '^$' -bench BenchmarkSteadyState -benchtime 1x -timeout 30m
//
// $RLPKIT_CONTROLLER_BIN runs that binary instead of building cmd/rlpkit-controller, and
// $RLPKIT_CONTROLLER_ARGS adds flags (space-separated). Each iteration adds its objects to
// those of the earlier ones: use -benchtime 1x.
func BenchmarkSteadyState(b *testing.B) {
	n := scaleRoutes(b, 10000)
	cfg := apiServer(b)
	c := direct(b, cfg)
	ctx := context.Background()
	bin := controllerBinary(b)
	kubeconfig := filepath.Join(b.TempDir(), "kubeconfig")
	user, err := env.AddUser(envtest.User{Name: "bench", Groups: []string{"system:masters"}}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := namespace(b, c, fmt.Sprintf("bench-%d-%d", n, i))
		createConcurrently(b, c, scaleObjects(b, ns, n))
		b.StartTimer()

		p := startProcess(b, bin, kubeconfig)
		start := time.Now()
		last, lastChange := -1, start
		eventually(b, 30*time.Minute, func() error {
			w, err := p.writes()
			if err != nil {
				return err
			}
			if w != last {
				last, lastChange = w, time.Now()
			}
			if time.Since(lastChange) < 3*time.Second {
				return errNotYet
			}
			_, err = steadyCheck(ctx, c, ns, n)
			return err
		})
		took := lastChange.Sub(start)
		b.StopTimer()

		// Steady: an event that changes nothing brings a run and no write.
		gw := gateway(ns, "gw", "")
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
			b.Fatal(err)
		}
		runs, _ := p.metric("controller_runtime_reconcile_total")
		gw.Annotations = map[string]string{"touched": "yes"}
		if err := c.Update(ctx, gw); err != nil {
			b.Fatal(err)
		}
		eventually(b, 5*time.Minute, func() error {
			if r, err := p.metric("controller_runtime_reconcile_total"); err != nil || r <= runs {
				return fmt.Errorf("no run since the event (%v)", err)
			}
			return nil
		})
		time.Sleep(3 * time.Second)
		after, err := p.writes()
		if err != nil {
			b.Fatal(err)
		}
		if after != last {
			b.Errorf("the controller sent %d writes after steady state, want none", after-last)
		}
		rss := p.peakRSS()
		p.stop()
		b.ReportMetric(took.Seconds(), "s-to-steady")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(last), "writes")
		b.Logf("%d HTTPRoutes and RateLimitPolicies on one Gateway: steady %v after the controller started, peak RSS %.0f MiB, %d writes", n, took.Round(time.Second), float64(rss)/(1<<20), last)
	}
}

// controllerBinary returns $RLPKIT_CONTROLLER_BIN, or builds cmd/rlpkit-controller.
func controllerBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("RLPKIT_CONTROLLER_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "rlpkit-controller")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rlpkit-controller").CombinedOutput(); err != nil {
		b.Fatalf("build rlpkit-controller: %v\n%s", err, out)
	}
	return bin
}

// process is rlpkit-controller running as a process of its own.
type process struct {
	cmd     *exec.Cmd
	metrics string
}

// startProcess starts the controller with the kubeconfig, serving metrics on a free port.
func startProcess(b *testing.B, bin, kubeconfig string) *process {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args := append([]string{"--metrics-addr=" + addr, "--health-addr=0"}, strings.Fields(os.Getenv("RLPKIT_CONTROLLER_ARGS"))...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	logs, err := os.Create(filepath.Join(b.TempDir(), "controller.log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &process{cmd: cmd, metrics: "http://" + addr + "/metrics"}
	b.Cleanup(p.stop)
	return p
}

// stop stops the controller.
func (p *process) stop() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// metric returns the sum of a metric's series.
func (p *process) metric(name string) (float64, error) {
	resp, err := http.Get(p.metrics)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", line, err)
		}
		sum += v
	}
	return sum, sc.Err()
}

// writes returns the write requests the controller sent.
func (p *process) writes() (int, error) {
	w, err := p.metric("rlpkit_controller_writes_total")
	return int(w), err
}

// peakRSS returns the process's peak resident memory in bytes (VmHWM), or 0 when the
// system does not say.
func (p *process) peakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
