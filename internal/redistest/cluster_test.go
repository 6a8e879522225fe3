package redistest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCluster3(t *testing.T) {
	c := StartCluster3(t)
	if len(c.Nodes) != 6 {
		t.Fatalf("%d nodes, want 6", len(c.Nodes))
	}
	if !strings.HasPrefix(c.URL(), "redis://"+c.Nodes[0].Addr+"?addr="+c.Nodes[1].Addr+"&addr=") {
		t.Errorf("URL() = %q", c.URL())
	}
	for i := range 3 {
		tag := TagOn(i, "t")
		if got := c.MasterOf(t, Slot(tag)); got != c.Nodes[i] {
			t.Fatalf("master of %s (slot %d) = %v, want node %d %s", tag, Slot(tag), got, i, c.Nodes[i].Addr)
		}
		if got := mustDo(t, c.Nodes[i].Addr, "SET", tag+"k", "v"); got != "+OK" {
			t.Fatalf("SET on its master = %q", got)
		}
		// Another master redirects, as any cluster does.
		if got := mustDo(t, c.Nodes[(i+1)%3].Addr, "GET", tag+"k"); !strings.HasPrefix(got, "-MOVED") {
			t.Fatalf("GET on another master = %q, want -MOVED", got)
		}
		role, err := Do(c.Nodes[3+i].Addr, time.Second, "ROLE")
		if err != nil || len(role.Array) < 3 || role.Array[0].Str != "slave" {
			t.Fatalf("ROLE of node %d = %+v, %v, want a replica", 3+i, role, err)
		}
	}

	// A master killed is replaced by its replica; the others keep theirs.
	slot := Slot(TagOn(1, "t"))
	c.Nodes[1].Kill()
	if got := c.WaitPromoted(t, slot, c.Nodes[1]); got != c.Nodes[4] {
		t.Fatalf("promoted %s, want the replica %s", got.Addr, c.Nodes[4].Addr)
	}
	if got := c.MasterOf(t, Slot(TagOn(0, "t"))); got != c.Nodes[0] {
		t.Errorf("master of node 0's slots after another failover = %v", got)
	}
	// Restarted, the old master rejoins as a replica of the promoted one.
	c.Nodes[1].Restart(t)
	if err := waitFor(func() error {
		role, err := Do(c.Nodes[1].Addr, time.Second, "ROLE")
		if err != nil {
			return err
		}
		if len(role.Array) < 3 || role.Array[0].Str != "slave" || role.Array[2].Int != mustPort(t, c.Nodes[4].Addr) {
			return errorf("ROLE %+v", role)
		}
		return nil
	}); err != nil {
		t.Fatalf("restarted old master: %v", err)
	}
}

func TestSlot(t *testing.T) {
	if got := Slot("123456789"); got != 0x31C3 {
		t.Errorf("Slot(123456789) = %d, want CRC16's check value %d", got, 0x31C3)
	}
	// As Redis computes it.
	s := StartCluster(t)
	for _, key := range []string{"foo", "{user1000}.following", "{}x", "a{b}c", "{a}{b}", "a{", "", "rlpkit:{d|k|v}x"} {
		r, err := Do(s.Addr, time.Second, "CLUSTER", "KEYSLOT", key)
		if err != nil {
			t.Fatal(err)
		}
		if got := Slot(key); got != int(r.Int) {
			t.Errorf("Slot(%q) = %d, want %d", key, got, r.Int)
		}
	}
}

func TestSentinelFailover(t *testing.T) {
	st := StartSentinel(t)
	if got, err := st.MasterAddr(); err != nil || got != st.Master.Addr {
		t.Fatalf("MasterAddr() = %q, %v, want %s", got, err, st.Master.Addr)
	}
	if !strings.Contains(st.URL(), "master_name="+MasterName) {
		t.Errorf("URL() = %q", st.URL())
	}
	st.Master.Kill()
	if got := st.WaitFailover(t, st.Master.Addr); got != st.Replica.Addr {
		t.Fatalf("after the failover the master is %s, want the replica %s", got, st.Replica.Addr)
	}
}

func mustPort(t *testing.T, addr string) int64 {
	t.Helper()
	_, p, _ := strings.Cut(addr, ":")
	var n int64
	for _, ch := range p {
		n = n*10 + int64(ch-'0')
	}
	return n
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
