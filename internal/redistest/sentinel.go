package redistest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MasterName is the name StartSentinel's sentinels know the master by.
const MasterName = "mymaster"

// Sentinel is a master, its replica and three Sentinels monitoring them
// (quorum 2), on free loopback ports, started by StartSentinel.
type Sentinel struct {
	// Master and Replica are the data nodes as started; a failover swaps
	// their roles (MasterAddr tells the current master).
	Master, Replica *Server
	// Sentinels are the three sentinels' addresses.
	Sentinels []string
}

// StartSentinel starts a master, a replica of it and three Sentinels with
// down-after-milliseconds NodeTimeout and quorum 2, waits until every
// sentinel knows the replica and the other sentinels (so that a failover
// can be voted), and stops them all when the test ends. When redis-server
// is not on PATH it skips the test, unless RequireEnv is "1", then it
// fails it.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	bin := lookBin(t)
	repl := []string{"--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"}
	st := &Sentinel{}
	st.Master = &Server{bin: bin, dir: t.TempDir(), extra: repl}
	t.Cleanup(st.Master.Kill)
	if err := st.Master.startOnFreePort(); err != nil {
		t.Fatalf("redistest: sentinel's master: %v", err)
	}
	host, port, _ := net.SplitHostPort(st.Master.Addr)
	st.Replica = &Server{bin: bin, dir: t.TempDir(), extra: append(repl, "--replicaof", host, port)}
	t.Cleanup(st.Replica.Kill)
	if err := st.Replica.startOnFreePort(); err != nil {
		t.Fatalf("redistest: sentinel's replica: %v", err)
	}
	if err := waitFor(func() error {
		info, err := Do(st.Replica.Addr, time.Second, "INFO", "replication")
		if err != nil {
			return err
		}
		if v := infoField(info.Str, "master_link_status"); v != "up" {
			return fmt.Errorf("replica %s: master_link_status %q", st.Replica.Addr, v)
		}
		return nil
	}); err != nil {
		t.Fatalf("redistest: sentinel's replica: %v", err)
	}
	for i := range 3 {
		addr, err := startSentinelProcess(t, bin, host, port)
		if err != nil {
			t.Fatalf("redistest: sentinel %d: %v", i, err)
		}
		st.Sentinels = append(st.Sentinels, addr)
	}
	if err := waitFor(func() error {
		for _, s := range st.Sentinels {
			m, err := Do(s, time.Second, "SENTINEL", "MASTER", MasterName)
			if err != nil {
				return err
			}
			f := fields(m)
			if f["num-other-sentinels"] != "2" || f["num-slaves"] != "1" {
				return fmt.Errorf("sentinel %s knows %s other sentinels and %s replicas, want 2 and 1", s, f["num-other-sentinels"], f["num-slaves"])
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("redistest: sentinels: %v", err)
	}
	return st
}

// startSentinelProcess runs a sentinel monitoring the master at host:port
// on a free port and returns its address once it answers PING.
func startSentinelProcess(t testing.TB, bin, host, port string) (string, error) {
	var errs []string
	for range 5 {
		p, err := freePort()
		if err != nil {
			return "", err
		}
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s %s %s 2\nsentinel down-after-milliseconds %s %d\nsentinel failover-timeout %s 2000\n",
			p, dir, MasterName, host, port, MasterName, NodeTimeout/time.Millisecond, MasterName)
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			return "", err
		}
		s := &Server{bin: bin, dir: dir, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(p))}
		if err := s.startArgs([]string{conf, "--sentinel"}); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		t.Cleanup(s.Kill)
		return s.Addr, nil
	}
	return "", fmt.Errorf("cannot start a sentinel:\n%s", strings.Join(errs, "\n"))
}

// fields reads a flat array of names and values into a map.
func fields(r Reply) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(r.Array); i += 2 {
		m[r.Array[i].Str] = r.Array[i+1].Str
	}
	return m
}

// URL returns the Redis URL of the master through the sentinels, the form
// limit/redis.NewClient takes for Sentinel:
// "redis://sentinel1?addr=sentinel2&addr=sentinel3&master_name=mymaster".
func (st *Sentinel) URL() string {
	return "redis://" + st.Sentinels[0] + "?addr=" + st.Sentinels[1] + "&addr=" + st.Sentinels[2] + "&master_name=" + MasterName
}

// MasterAddr returns the master's address as the first sentinel that
// answers sees it.
func (st *Sentinel) MasterAddr() (string, error) {
	var last error
	for _, s := range st.Sentinels {
		r, err := Do(s, time.Second, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName)
		if err != nil {
			last = err
			continue
		}
		if len(r.Array) != 2 {
			return "", fmt.Errorf("sentinel %s: no master named %s", s, MasterName)
		}
		return net.JoinHostPort(r.Array[0].Str, r.Array[1].Str), nil
	}
	return "", last
}

// WaitFailover waits until the sentinels name a master other than old
// and that node answers as a master, and returns its address; it fails
// the test after clusterTimeout.
func (st *Sentinel) WaitFailover(t testing.TB, old string) string {
	t.Helper()
	var addr string
	if err := waitFor(func() error {
		var err error
		if addr, err = st.MasterAddr(); err != nil {
			return err
		}
		if addr == old {
			return fmt.Errorf("the sentinels still name %s", old)
		}
		role, err := Do(addr, time.Second, "ROLE")
		if err != nil {
			return err
		}
		if len(role.Array) == 0 || role.Array[0].Str != "master" {
			return fmt.Errorf("%s is not a master yet", addr)
		}
		return nil
	}); err != nil {
		t.Fatalf("redistest: sentinel failover from %s: %v", old, err)
	}
	return addr
}
