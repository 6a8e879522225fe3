package redis

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// startReplicated returns a master and a replica in sync with it.
func startReplicated(t *testing.T) (master, replica *redistest.Server) {
	t.Helper()
	return startReplicatedB(t)
}

// startReplicatedB is startReplicated for any testing.TB.
func startReplicatedB(t testing.TB) (master, replica *redistest.Server) {
	t.Helper()
	master, replica = redistest.Start(t), redistest.Start(t)
	if _, err := redistest.Do(master.Addr, time.Second, "CONFIG", "SET", "repl-diskless-sync-delay", "0"); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(master.Addr)
	if _, err := redistest.Do(replica.Addr, time.Second, "REPLICAOF", host, port); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := redistest.Do(replica.Addr, time.Second, "INFO", "replication")
		if err == nil && strings.Contains(info.Str, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica is not in sync within 10s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return master, replica
}

// TestAckReplicasBoundsTheLoss: with Options.AckReplicas, an Update whose
// writes the replica did not acknowledge fails, so that when the replica
// (cut off from its master meanwhile) takes over after the master dies,
// no admitted hit is lost; without it, the hits admitted while the replica
// was cut off are lost. The latency of each is logged.
func TestAckReplicasBoundsTheLoss(t *testing.T) {
	master, replica := startReplicated(t)
	c := newClient(t, master)
	// A replica in sync acknowledges within a second, even on a loaded
	// machine; one cut off is given 50 ms.
	acked := newStore(t, c, Options{AckReplicas: 1, AckTimeout: time.Second})
	ackedShort := newStore(t, c, Options{AckReplicas: 1, AckTimeout: 50 * time.Millisecond})
	plain := newStore(t, c, Options{})
	const n = 200
	admitted := map[string]int{}
	for _, tc := range []struct {
		name string
		s    *Store
		key  string
	}{{"acknowledged", acked, "{ack}a"}, {"plain", plain, "{ack}p"}} {
		start := time.Now()
		for range n {
			if _, err := hit(tc.s, tc.key, 5*time.Second); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		admitted[tc.key] = n
		t.Logf("%s writes: %v per Update, one at a time (master and replica on loopback)", tc.name, (time.Since(start) / n).Round(time.Microsecond))
	}

	// The replica is cut off from its master, as by a partition: nothing
	// written from now on reaches it. It keeps what it had.
	if _, err := redistest.Do(replica.Addr, time.Second, "REPLICAOF", "NO", "ONE"); err != nil {
		t.Fatal(err)
	}
	lagging := 0
	for range 20 {
		if _, err := hit(ackedShort, "{ack}a", 5*time.Second); !errors.Is(err, ErrNotAcknowledged) {
			t.Fatalf("an Update the cut-off replica cannot acknowledge = %v, want ErrNotAcknowledged", err)
		}
		if _, err := hit(plain, "{ack}p", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		lagging++
	}
	admitted["{ack}p"] += lagging

	master.Kill() // the replica, a master already, takes over
	promoted := newStore(t, newClient(t, replica), Options{})
	for key, want := range admitted {
		ds := make([]counter.Decision, 1)
		err := promoted.Update(context.Background(), t0, []counter.Update{{Key: key, Policy: counter.Policy{Max: 1_000_000, Window: time.Hour}, Cost: 0}}, ds)
		if err != nil {
			t.Fatal(err)
		}
		count := 1_000_000 - int(ds[0].Remaining)
		t.Logf("%s: %d hits admitted, %d on the promoted replica: %d lost", key, want, count, want-count)
		switch key {
		case "{ack}a":
			if count < want {
				t.Errorf("acknowledged writes: %d admitted hits lost in the failover, want none", want-count)
			}
		case "{ack}p":
			if count != want-lagging {
				t.Errorf("plain writes: the promoted replica counts %d, want %d (those admitted while it lagged lost)", count, want-lagging)
			}
		}
	}
}

func TestAckReplicasOptions(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	if _, err := New(c, Options{AckReplicas: -1}); err == nil {
		t.Error("New with negative AckReplicas succeeded")
	}
	cluster := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: []string{srv.Addr}})
	defer cluster.Close()
	if _, err := New(cluster, Options{AckReplicas: 1}); err == nil {
		t.Error("New with AckReplicas on a Cluster client succeeded")
	}
}

// BenchmarkAckReplicas compares Updates with and without
// Options.AckReplicas on a master with one replica, from concurrent
// callers (sharing pipelines, so one WAIT per pipeline).
func BenchmarkAckReplicas(b *testing.B) {
	master, _ := startReplicatedB(b)
	c := newClient(b, master)
	for _, bc := range []struct {
		name string
		o    Options
	}{{"plain", Options{}}, {"ack1", Options{AckReplicas: 1, AckTimeout: time.Second}}} {
		b.Run(bc.name, func(b *testing.B) {
			s := newStore(b, c, bc.o)
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := hit(s, "{bench}"+bc.name, 5*time.Second); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
