package bolt

import (
	"context"

	"github.com/apikit-dev/apikit/storage"
)

// ListShared is List without the copies: the items are the stored objects, shared
// read-only with every other reader; the caller must not modify them. See
// memory.Store.ListShared.
func (s *Store) ListShared(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return s.mem.ListShared(ctx, prefix, opts)
}
