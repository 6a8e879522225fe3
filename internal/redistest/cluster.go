package redistest

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NodeTimeout is the cluster-node-timeout of StartCluster3's nodes and
// the down-after-milliseconds of StartSentinel's sentinels: how long a
// node may not answer before the others take it for failed and a replica
// is promoted. Redis's default is 15 s; tests want a failover in about a
// second.
const NodeTimeout = 500 * time.Millisecond

// clusterTimeout bounds how long a cluster or a failover may take to form.
const clusterTimeout = 20 * time.Second

// Cluster is a Redis Cluster of three masters, each with one replica, on
// free loopback ports, started by StartCluster3. Its nodes are Servers:
// Kill, Pause and Resume work on each, and Restart brings a node back with
// its identity, so that it rejoins the cluster (as a replica, when its
// own was promoted meanwhile).
type Cluster struct {
	// Nodes are the cluster's nodes as started: Nodes[0], Nodes[1] and
	// Nodes[2] are the masters of slots 0-5460, 5461-10922 and
	// 10923-16383, and Nodes[3+i] is the replica of Nodes[i]. A failover
	// changes the roles; MasterOf tells the current one.
	Nodes []*Server
	ids   []string
}

// StartCluster3 starts a Redis Cluster of three masters and three
// replicas, with cluster-node-timeout NodeTimeout and
// cluster-require-full-coverage off (the slots of the other masters answer
// while one master is down), waits until every node sees the cluster ok
// and every replica is in sync, and stops every node when the test ends.
// When redis-server is not on PATH it skips the test, unless RequireEnv
// is "1", then it fails it.
func StartCluster3(t testing.TB) *Cluster {
	t.Helper()
	bin := lookBin(t)
	c := &Cluster{}
	for i := range 6 {
		s := &Server{bin: bin, dir: t.TempDir(), member: true, extra: []string{
			"--cluster-node-timeout", strconv.Itoa(int(NodeTimeout / time.Millisecond)),
			"--cluster-require-full-coverage", "no",
			"--cluster-replica-validity-factor", "0",
			"--repl-diskless-sync", "yes",
			"--repl-diskless-sync-delay", "0",
		}}
		t.Cleanup(s.Kill)
		if err := s.startOnFreePort(); err != nil {
			t.Fatalf("redistest: cluster node %d: %v", i, err)
		}
		c.Nodes = append(c.Nodes, s)
	}
	if err := c.form(); err != nil {
		t.Fatalf("redistest: form a cluster of %s: %v", strings.Join(c.Addrs(), ", "), err)
	}
	return c
}

// form makes the started nodes one cluster: distinct config epochs, MEET,
// the slots in three ranges, a replica per master, then waits until it is
// ready.
func (c *Cluster) form() error {
	for i, n := range c.Nodes {
		id, err := Do(n.Addr, time.Second, "CLUSTER", "MYID")
		if err != nil {
			return err
		}
		c.ids = append(c.ids, id.Str)
		if _, err := Do(n.Addr, time.Second, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1)); err != nil {
			return err
		}
	}
	host, port, _ := net.SplitHostPort(c.Nodes[0].Addr)
	for _, n := range c.Nodes[1:] {
		if _, err := Do(n.Addr, time.Second, "CLUSTER", "MEET", host, port); err != nil {
			return err
		}
	}
	for i := range 3 {
		lo, hi := i*16384/3, (i+1)*16384/3-1
		if i == 2 {
			hi = 16383
		}
		if _, err := Do(c.Nodes[i].Addr, time.Second, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			return err
		}
	}
	// A replica can follow its master once it knows it.
	if err := waitFor(func() error {
		for _, n := range c.Nodes[3:] {
			nodes, err := Do(n.Addr, time.Second, "CLUSTER", "NODES")
			if err != nil {
				return err
			}
			for _, id := range c.ids[:3] {
				if !strings.Contains(nodes.Str, id) {
					return fmt.Errorf("%s does not know node %s yet", n.Addr, id)
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i, n := range c.Nodes[3:] {
		if _, err := Do(n.Addr, time.Second, "CLUSTER", "REPLICATE", c.ids[i]); err != nil {
			return err
		}
	}
	return waitFor(func() error {
		for i, n := range c.Nodes {
			if err := clusterOK(n.Addr, 6); err != nil {
				return err
			}
			if i >= 3 {
				info, err := Do(n.Addr, time.Second, "INFO", "replication")
				if err != nil {
					return err
				}
				if v := infoField(info.Str, "master_link_status"); v != "up" {
					return fmt.Errorf("replica %s: master_link_status %q", n.Addr, v)
				}
			}
		}
		// Every node agrees on the slots' masters, so a client asking any
		// of them sees the same cluster.
		want := ""
		for _, n := range c.Nodes {
			got, err := slotMasters(n.Addr)
			if err != nil {
				return err
			}
			if want == "" {
				want = got
			} else if got != want {
				return fmt.Errorf("nodes disagree on the slots: %s against %s", got, want)
			}
		}
		return nil
	})
}

// clusterOK checks that the node at addr says cluster_state:ok and knows
// at least known nodes.
func clusterOK(addr string, known int) error {
	info, err := Do(addr, time.Second, "CLUSTER", "INFO")
	if err != nil {
		return err
	}
	if v := infoField(info.Str, "cluster_state"); v != "ok" {
		return fmt.Errorf("%s: cluster_state %q", addr, v)
	}
	if v, _ := strconv.Atoi(infoField(info.Str, "cluster_known_nodes")); v < known {
		return fmt.Errorf("%s: cluster_known_nodes %d, want %d", addr, v, known)
	}
	return nil
}

// slotMasters returns the slot ranges and their masters as the node at
// addr sees them, one "lo-hi@addr" each, in CLUSTER SLOTS's order.
func slotMasters(addr string) (string, error) {
	slots, err := Do(addr, time.Second, "CLUSTER", "SLOTS")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, r := range slots.Array {
		if len(r.Array) < 3 || len(r.Array[2].Array) < 2 {
			return "", fmt.Errorf("%s: malformed CLUSTER SLOTS entry", addr)
		}
		m := r.Array[2].Array
		parts = append(parts, fmt.Sprintf("%d-%d@%s:%d", r.Array[0].Int, r.Array[1].Int, m[0].Str, m[1].Int))
	}
	return strings.Join(parts, ","), nil
}

// waitFor polls check until it returns nil or clusterTimeout passes.
func waitFor(check func() error) error {
	deadline := time.Now().Add(clusterTimeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %v: %w", clusterTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Addrs returns the addresses of the nodes, in the order of Nodes.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr
	}
	return out
}

// URL returns a Redis URL naming every node as a seed, the form
// limit/redis.NewClient takes for a Cluster:
// "redis://first?addr=second&addr=...".
func (c *Cluster) URL() string {
	var b strings.Builder
	b.WriteString("redis://" + c.Nodes[0].Addr)
	for i, n := range c.Nodes[1:] {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString("addr=" + n.Addr)
	}
	return b.String()
}

// MasterOf returns the node that serves slot as a master, as the first
// node that answers sees it, or nil when none does.
func (c *Cluster) MasterOf(t testing.TB, slot int) *Server {
	t.Helper()
	for _, n := range c.Nodes {
		slots, err := Do(n.Addr, time.Second, "CLUSTER", "SLOTS")
		if err != nil {
			continue
		}
		for _, r := range slots.Array {
			if len(r.Array) < 3 || int(r.Array[0].Int) > slot || int(r.Array[1].Int) < slot {
				continue
			}
			m := r.Array[2].Array
			addr := net.JoinHostPort(m[0].Str, strconv.FormatInt(m[1].Int, 10))
			for _, s := range c.Nodes {
				if s.Addr == addr {
					return s
				}
			}
		}
		return nil
	}
	return nil
}

// WaitPromoted waits until a node other than old serves slot as a master
// and every running node sees the cluster ok, and returns that node: after
// old was killed, the replica the cluster promoted. It fails the test
// after clusterTimeout.
func (c *Cluster) WaitPromoted(t testing.TB, slot int, old *Server) *Server {
	t.Helper()
	var got *Server
	err := waitFor(func() error {
		got = nil
		for _, n := range c.Nodes {
			if n == old {
				continue
			}
			role, err := Do(n.Addr, time.Second, "ROLE")
			if err != nil || len(role.Array) == 0 || role.Array[0].Str != "master" {
				continue
			}
			if m := c.MasterOf(t, slot); m == n {
				got = n
			}
		}
		if got == nil {
			return fmt.Errorf("no node but %s serves slot %d", old.Addr, slot)
		}
		for _, n := range c.Nodes {
			if n == old {
				continue
			}
			if err := clusterOK(n.Addr, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("redistest: failover of slot %d from %s: %v", slot, old.Addr, err)
	}
	return got
}

// Slot returns the Redis Cluster slot of key: CRC16 of its hash tag (the
// text between the first '{' and the next '}' when not empty, else the
// whole key) modulo 16384.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc ^= uint16(key[k]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// TagOn returns a hash tag "{prefix-N}", for the smallest N, whose slot
// lies in the range Nodes[i] (i < 3) was given at start.
func TagOn(i int, prefix string) string {
	lo, hi := i*16384/3, (i+1)*16384/3-1
	if i == 2 {
		hi = 16383
	}
	for n := 0; ; n++ {
		tag := fmt.Sprintf("{%s-%d}", prefix, n)
		if s := Slot(tag); s >= lo && s <= hi {
			return tag
		}
	}
}

// ID returns the cluster node ID of n, one of c.Nodes.
func (c *Cluster) ID(n *Server) string {
	for i, s := range c.Nodes {
		if s == n {
			return c.ids[i]
		}
	}
	return ""
}

// MoveSlot moves slot from the master from to the master to, as
// redis-cli --cluster reshard does: the slot IMPORTING on to and MIGRATING
// on from, its keys moved with MIGRATE one at a time (between, when set,
// is called after each), then the slot given to to on every master. While
// it runs, from answers ASK for the keys already moved and TRYAGAIN to a
// command whose keys are split. It fails the test on any error.
func (c *Cluster) MoveSlot(t testing.TB, slot int, from, to *Server, between func()) {
	t.Helper()
	s := strconv.Itoa(slot)
	must := func(addr string, args ...string) Reply {
		t.Helper()
		r, err := Do(addr, 5*time.Second, args...)
		if err != nil {
			t.Fatalf("redistest: move slot %d: %v", slot, err)
		}
		return r
	}
	must(to.Addr, "CLUSTER", "SETSLOT", s, "IMPORTING", c.ID(from))
	must(from.Addr, "CLUSTER", "SETSLOT", s, "MIGRATING", c.ID(to))
	host, port, _ := net.SplitHostPort(to.Addr)
	for {
		keys := must(from.Addr, "CLUSTER", "GETKEYSINSLOT", s, "1")
		if len(keys.Array) == 0 {
			break
		}
		must(from.Addr, "MIGRATE", host, port, "", "0", "5000", "KEYS", keys.Array[0].Str)
		if between != nil {
			between()
		}
	}
	must(to.Addr, "CLUSTER", "SETSLOT", s, "NODE", c.ID(to))
	must(from.Addr, "CLUSTER", "SETSLOT", s, "NODE", c.ID(to))
	for _, n := range c.Nodes {
		if n == to || n == from {
			continue
		}
		if role, err := Do(n.Addr, time.Second, "ROLE"); err == nil && len(role.Array) > 0 && role.Array[0].Str == "master" {
			must(n.Addr, "CLUSTER", "SETSLOT", s, "NODE", c.ID(to))
		}
	}
}
