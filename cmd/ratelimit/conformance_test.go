package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/rogpeppe/go-internal/txtar"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// The conformance suite: each testdata/conformance/*.txtar holds the
// configuration files of a case (config/...), optionally an "env" file of
// extra VARIABLE=value lines, and a "requests" file of calls and their
// expected answers, one a line:
//
//	DOMAIN [+hits=N] [DESCRIPTOR...] -> ANSWER
//
// where DESCRIPTOR is k=v[,k=v...][,@hits=N][,@limit=N/UNIT] and DOMAIN is
// "-" for the empty domain; ANSWER is the overall code then each status,
// separated by "; " (see formatResponse), or "ERROR text" for a call that
// must fail with text in its message. The built binary serves each case,
// over gRPC, once with the memory backend and once with a real Redis.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds cmd/ratelimit once per test run.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ratelimit-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ratelimit")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var servingRE = regexp.MustCompile(`msg=serving grpc=(\S+) http=(\S+) debug=(\S+)`)

// startBinary runs the built binary with env and returns its gRPC client.
func startBinary(t *testing.T, env map[string]string) rlsv3.RateLimitServiceClient {
	t.Helper()
	cmd := exec.Command(binary(t))
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, environ(env)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log strings.Builder
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("ratelimit exited before serving:\n%s", log.String())
			}
			log.WriteString(l + "\n")
			if m := servingRE.FindStringSubmatch(l); m != nil {
				go func() {
					for range lines { // drain
					}
				}()
				conn, err := grpc.NewClient(m[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				return rlsv3.NewRateLimitServiceClient(conn)
			}
		case <-timeout:
			t.Fatalf("ratelimit did not serve within 10s:\n%s", log.String())
		}
	}
}

func TestConformance(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance cases: %v", err)
	}
	var redis *redistest.Server
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "redis" {
				redis = redistest.Start(t)
			}
			for _, file := range files {
				t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
					runCase(t, file, backend, redis)
				})
			}
		})
	}
}

func runCase(t *testing.T, file, backend string, redis *redistest.Server) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	env := baseEnv(root)
	env["BACKEND_TYPE"] = backend
	if redis != nil {
		env["REDIS_SOCKET_TYPE"], env["REDIS_URL"] = "tcp", redis.Addr
		env["CACHE_KEY_PREFIX"] = fmt.Sprintf("%s-%d:", filepath.Base(file), time.Now().UnixNano())
	}
	var requests string
	for _, f := range ar.Files {
		switch {
		case f.Name == "requests":
			requests = string(f.Data)
		case f.Name == "env":
			for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				if k, v, ok := strings.Cut(l, "="); ok {
					env[k] = v
				}
			}
		default:
			writeFile(t, filepath.Join(root, "ratelimit", f.Name), string(f.Data))
		}
	}
	client := startBinary(t, env)
	awayFromWindowEnd()
	for n, line := range strings.Split(requests, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		call, want, ok := strings.Cut(line, " -> ")
		if !ok {
			t.Fatalf("%s:requests:%d: want CALL -> ANSWER", file, n+1)
		}
		req, err := parseCall(call)
		if err != nil {
			t.Fatalf("%s:requests:%d: %v", file, n+1, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := client.ShouldRateLimit(ctx, req)
		cancel()
		got := ""
		if err != nil {
			got = "ERROR " + status.Convert(err).Message()
			if strings.HasPrefix(want, "ERROR ") && strings.Contains(got, strings.TrimPrefix(want, "ERROR ")) {
				continue
			}
		} else {
			got = formatResponse(resp)
		}
		if got != want {
			t.Errorf("%s:requests:%d: %s\n got %s\nwant %s", file, n+1, call, got, want)
		}
	}
}

// awayFromWindowEnd waits, when a minute is about to end, until it has, so
// that a case's requests fall in one window of every unit.
func awayFromWindowEnd() {
	if s := time.Now().Unix() % 60; s >= 55 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
}

// parseCall parses the left side of a requests line.
func parseCall(s string) (*rlsv3.RateLimitRequest, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("empty call")
	}
	req := &rlsv3.RateLimitRequest{Domain: fields[0]}
	if req.Domain == "-" {
		req.Domain = ""
	}
	for _, f := range fields[1:] {
		if h, ok := strings.CutPrefix(f, "+hits="); ok {
			n, err := strconv.ParseUint(h, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			req.HitsAddend = uint32(n)
			continue
		}
		d := &rlv3.RateLimitDescriptor{}
		for _, kv := range strings.Split(f, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "@hits":
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", kv, err)
				}
				d.HitsAddend = wrapperspb.UInt64(n)
			case "@limit":
				rpu, unit, _ := strings.Cut(v, "/")
				n, err := strconv.ParseUint(rpu, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", kv, err)
				}
				d.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: uint32(n), Unit: typev3.RateLimitUnit(typev3.RateLimitUnit_value[unit])}
			default:
				d.Entries = append(d.Entries, &rlv3.RateLimitDescriptor_Entry{Key: k, Value: v})
			}
		}
		req.Descriptors = append(req.Descriptors, d)
	}
	return req, nil
}

// formatResponse writes an answer as the requests files do: the overall
// code, then per status its code, "N/UNIT" (with "*M" for a multiplier),
// "name=NAME" and "rem=N" (rem only when there is a limit or it is not 0).
func formatResponse(r *rlsv3.RateLimitResponse) string {
	parts := []string{r.OverallCode.String()}
	for _, st := range r.Statuses {
		s := st.Code.String()
		if l := st.CurrentLimit; l != nil {
			s += fmt.Sprintf(" %d/%s", l.RequestsPerUnit, l.Unit)
			if m := l.GetUnitMultiplier().GetValue(); m > 1 {
				s += fmt.Sprintf("*%d", m)
			}
			if l.Name != "" {
				s += " name=" + l.Name
			}
		}
		if st.CurrentLimit != nil || st.LimitRemaining != 0 {
			s += fmt.Sprintf(" rem=%d", st.LimitRemaining)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
