package cache

import (
	"context"
	"sync"
	"testing"
)

// blockingProgress is a backend's RequestWatchProgress that blocks its first call until
// released.
type blockingProgress struct {
	mu      sync.Mutex
	calls   int
	entered chan struct{}
	release chan struct{}
}

func (b *blockingProgress) RequestWatchProgress(context.Context) error {
	b.mu.Lock()
	b.calls++
	first := b.calls == 1
	b.mu.Unlock()
	if first {
		close(b.entered)
		<-b.release
	}
	return nil
}

func TestProgressRequests_ReadsArrivingDuringARequestShareTheNextOne(t *testing.T) {
	for _, tc := range []struct {
		name      string
		during    int
		wantCalls int
	}{
		{"none during the first", 0, 1},
		{"one during the first", 1, 2},
		{"ten during the first", 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p progressRequests
			b := &blockingProgress{entered: make(chan struct{}), release: make(chan struct{})}
			done := make(chan struct{})
			go func() {
				p.request(context.Background(), b)
				close(done)
			}()
			<-b.entered
			for range tc.during {
				p.request(context.Background(), b) // returns at once: the runner makes it
			}
			close(b.release)
			<-done
			if b.calls != tc.wantCalls {
				t.Errorf("backend requests = %d, want %d", b.calls, tc.wantCalls)
			}
		})
	}
}
