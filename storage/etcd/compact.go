package etcd

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactKey records the compactor's rounds. Its version (how often it was written)
// numbers the rounds across every replica on the cluster, so a round is done by
// whichever replica first writes the key in a transaction that compares the version it
// last saw: the others lose the transaction and skip the round, as kube-apiserver's
// compactors coordinate on "compact_rev_key".
const compactKey = "/compact_rev_key"

// Compact discards etcd's history before rv; see storage.Compactor. A revision already
// compacted is not an error; a future one fails with ErrTooLargeResourceVersion.
func (s *Store) Compact(ctx context.Context, rv uint64) error {
	return s.call(ctx, "", func(ctx context.Context) error {
		_, err := s.client.Compact(ctx, int64(rv), clientv3.WithCompactPhysical())
		if errors.Is(err, rpctypes.ErrCompacted) {
			return nil
		}
		if err != nil {
			if rerr := revisionError(err, "", rv); rerr != nil {
				return rerr
			}
		}
		return err
	})
}

// compactor is the state of the background compactor between rounds.
type compactor struct {
	// version is the compact key's version this replica last saw.
	version int64
	// rev is the revision the previous round recorded: the next round compacts to it,
	// so history of at least one interval is kept.
	rev int64
}

// runCompactor runs a compaction round every interval until the Store closes.
func (s *Store) runCompactor(interval time.Duration) {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTicker(interval)
	defer t.Stop()
	var c compactor
	for {
		select {
		case <-t.C:
			if err := s.compactRound(ctx, &c); err != nil && ctx.Err() == nil {
				s.log.Warn("etcd: compaction round failed", "err", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// compactRound claims this round for this replica by writing the compact key at the
// version last seen, then compacts to the revision the previous round recorded. When
// another replica claimed it first, this replica learns the key's version and revision
// and waits for the next round.
func (s *Store) compactRound(ctx context.Context, c *compactor) error {
	key := s.opts.Prefix + compactKey
	var resp *clientv3.TxnResponse
	err := s.call(ctx, compactKey, func(ctx context.Context) (err error) {
		resp, err = s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.Version(key), "=", c.version)).
			Then(clientv3.OpPut(key, strconv.FormatInt(c.rev, 10))).
			Else(clientv3.OpGet(key)).
			Commit()
		return err
	})
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			c.version = kvs[0].Version
		}
		c.rev = resp.Header.Revision
		return nil
	}
	c.version++
	compactTo := c.rev
	c.rev = resp.Header.Revision
	if compactTo == 0 {
		return nil
	}
	if err := s.Compact(ctx, uint64(compactTo)); err != nil {
		return err
	}
	s.log.Info("etcd: compacted", "revision", compactTo)
	return nil
}
