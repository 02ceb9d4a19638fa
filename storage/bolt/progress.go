package bolt

import (
	"context"

	"github.com/apikit-dev/apikit/storage"
)

var _ storage.ProgressRequester = (*Store)(nil)

// RequestWatchProgress sends every watch that allows bookmarks a BOOKMARK at the latest
// durable resourceVersion now (see storage.ProgressRequester).
func (s *Store) RequestWatchProgress(ctx context.Context) error {
	return s.mem.RequestWatchProgress(ctx)
}
