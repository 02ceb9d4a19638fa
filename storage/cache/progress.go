package cache

import (
	"context"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/storage"
)

// progressRetry is how often a read still waiting for the cache to reach a version asks
// the backend for a bookmark again: a watch whose buffer is busy may have been skipped.
const progressRetry = 100 * time.Millisecond

// progressRequests coalesces the bookmark requests of concurrent consistent reads into
// few backend calls (kube-apiserver's cacher does the same for etcd's RequestProgress):
// a read needs a request that starts after it read the backend's version, so while one
// request runs, the reads that arrive meanwhile share the single one that follows it.
type progressRequests struct {
	mu      sync.Mutex
	running bool
	pending bool
}

// request makes sure that a backend request starts after this call: it makes it itself,
// or leaves it to the goroutine already making one, which makes one more before it
// stops. It never waits for another goroutine.
func (p *progressRequests) request(ctx context.Context, backend storage.ProgressRequester) {
	p.mu.Lock()
	if p.running {
		p.pending = true
		p.mu.Unlock()
		return
	}
	p.running = true
	for {
		p.pending = false
		p.mu.Unlock()
		_ = backend.RequestWatchProgress(ctx)
		p.mu.Lock()
		if !p.pending {
			p.running = false
			p.mu.Unlock()
			return
		}
	}
}
