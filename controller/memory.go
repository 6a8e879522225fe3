package controller

import (
	"crypto/sha256"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// memory remembers what Sync wrote, so that a cache that has not yet seen a write does not
// cause the same write again. It keeps a digest of each write, not the content, and forgets
// writes older than staleAfter once per Sync (prune): recording a write costs the same
// however many are remembered. It is safe for concurrent use.
type memory struct {
	mu      sync.Mutex
	written map[types.UID]writeRecord
	// now is the clock; nil means time.Now.
	now func() time.Time
}

// writeRecord is one write: the resourceVersion the object had when Sync wrote it (empty
// for a create, recorded under "create Kind namespace/name"), a digest of what it wrote, and
// when.
type writeRecord struct {
	from   string
	digest [sha256.Size]byte
	at     time.Time
}

// staleAfter bounds how long a write is remembered: a cache lags behind its API server by
// far less, and an object deleted before the cache saw it is written again after that.
const staleAfter = time.Minute

func (m *memory) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// seen says whether the object, at the resourceVersion the cache has, is one Sync already
// wrote content to: the cache has not caught up with the write yet.
func (m *memory) seen(uid types.UID, resourceVersion string, content []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.written[uid]
	return ok && w.from == resourceVersion && w.digest == sha256.Sum256(content) && m.clock().Sub(w.at) < staleAfter
}

// created says whether Sync created the object recorded under key (a create has no
// resourceVersion), whatever the content, less than staleAfter ago.
func (m *memory) created(key types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.written[key]
	return ok && w.from == "" && m.clock().Sub(w.at) < staleAfter
}

// wrote records that Sync wrote content to an object at resourceVersion.
func (m *memory) wrote(uid types.UID, resourceVersion string, content []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.written == nil {
		m.written = map[types.UID]writeRecord{}
	}
	m.written[uid] = writeRecord{from: resourceVersion, digest: sha256.Sum256(content), at: m.clock()}
}

// forget drops the record of a write, when the object is deleted.
func (m *memory) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.written, uid)
}

// prune forgets the writes older than staleAfter. Sync calls it once per run.
func (m *memory) prune() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock()
	for k, w := range m.written {
		if now.Sub(w.at) >= staleAfter {
			delete(m.written, k)
		}
	}
}

// size returns the number of writes remembered.
func (m *memory) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.written)
}
