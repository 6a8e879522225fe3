package policytest

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/envoyxds"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

// BenchmarkSimulate replays JSON access-log lines of the toystore example (admin, other and
// unrouted requests from 256 clients over an hour) from parsing to per-limit counts;
// lines/s is the throughput on one core. The engine target generates descriptors from the
// PluginConfig; the envoy target evaluates the PluginConfig's translation to Envoy's
// route configuration (what "rlpkit compile -o envoy" prints) as Envoy does, with the same
// limits.
func BenchmarkSimulate(b *testing.B) {
	target, err := CompileTopology([]string{filepath.Join("..", "examples", "toystore")}, "gateway-system/mygateway")
	if err != nil {
		b.Fatal(err)
	}
	set, err := policy.Read([]string{filepath.Join("..", "examples", "toystore")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := merge.Compile(set, merge.Options{})
	if err != nil {
		b.Fatal(err)
	}
	out, err := envoyxds.Translate(&res.Gateways[0].PluginConfig, envoyxds.Options{})
	if err != nil {
		b.Fatal(err)
	}
	js, err := out.Render()
	if err != nil {
		b.Fatal(err)
	}
	routes, err := envoyroute.Decode(js, envoyroute.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("engine", func(b *testing.B) { benchmarkSimulate(b, target) })
	b.Run("envoy", func(b *testing.B) { benchmarkSimulate(b, NewTarget(RouteFrontend(routes), target.Limits)) })
}

func benchmarkSimulate(b *testing.B, target *Target) {
	var log bytes.Buffer
	const lines = 1 << 16
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	paths := []string{"/admin", "/toy/1", "/toy/2", "/checkout"}
	for i := range lines {
		t := start.Add(time.Duration(i) * 55 * time.Millisecond)
		fmt.Fprintf(&log, `{"start_time":"%s","method":"GET","path":"%s","protocol":"HTTP/1.1","response_code":200,"authority":"api.toystore.com","downstream_remote_address":"10.0.%d.%d:5000","user_agent":"curl/8.5","x_forwarded_for":null,"request_id":"%08x"}`+"\n",
			t.Format("2006-01-02T15:04:05.000Z"), paths[i%len(paths)], i%256/16, i%16, i)
	}
	data := log.Bytes()
	sim, err := NewSimulator(target)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data) / lines))
	b.ReportAllocs()
	b.ResetTimer()
	var e LogEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 0; i < b.N; i++ {
		if !sc.Scan() {
			sc = bufio.NewScanner(bytes.NewReader(data))
			sc.Scan()
		}
		if err := ParseLogLine(sc.Bytes(), &e); err != nil {
			b.Fatal(err)
		}
		if _, err := sim.Replay(&e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
