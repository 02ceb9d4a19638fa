package memory

import (
	"context"

	"github.com/apikit-dev/apikit/storage"
)

var _ storage.ProgressRequester = (*Store)(nil)

// RequestWatchProgress sends every watch that allows bookmarks a BOOKMARK at the visible
// resourceVersion now: a watch cache in front of the store learns that it is caught up.
func (s *Store) RequestWatchProgress(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.broadcaster.RequestProgress()
	return nil
}
