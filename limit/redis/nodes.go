package redis

import (
	"context"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// nodePipes keeps a Store's pipeliners on a Cluster client, one per
// master: each master gets its own pipelines, the calls for its slots
// sharing them (one round trip per master per batch), so that a slow or
// dead master holds back only the calls for its own slots. A call goes to
// the master that holds its key's slot in the client's map of the
// Cluster; when that map is stale, go-redis follows Redis's MOVED and ASK
// answers within the pipeline.
type nodePipes struct {
	cluster *goredis.ClusterClient
	new     func(addr string) *pipeliner
	pipes   sync.Map // master address -> *pipeliner
}

// forKey returns the pipeliner of the master that holds key's slot.
func (n *nodePipes) forKey(ctx context.Context, key string) (*pipeliner, error) {
	master, err := n.cluster.MasterForKey(ctx, key)
	if err != nil {
		return nil, err
	}
	return n.forAddr(master.Options().Addr), nil
}

// forAddr returns the pipeliner of the master at addr, creating it.
func (n *nodePipes) forAddr(addr string) *pipeliner {
	if p, ok := n.pipes.Load(addr); ok {
		return p.(*pipeliner)
	}
	p, _ := n.pipes.LoadOrStore(addr, n.new(addr))
	return p.(*pipeliner)
}
