package etcd

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// listChunk is how many keys one range asks etcd for when the page's size is not what
// bounds it (a list without limit, or with a selector that drops items): memory and the
// time of one etcd request stay bounded however large the collection. kube-apiserver
// pages selector lists from etcd the same way.
const listChunk = 500

// List returns one page of the objects under prefix, read at one revision; see
// storage.Interface. The first range fixes the revision and the rest of the page, and
// every later page (through the continue token), is read at it.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	prefix = storage.EnsurePrefix(prefix)
	spec, err := storage.ResolveList(prefix, opts)
	if err != nil {
		return nil, storage.WithKey(err, prefix)
	}
	var rev int64 // 0: the first range reads the latest revision and fixes it
	switch spec.Mode {
	case storage.ReadExact:
		rev = int64(spec.ResourceVersion)
	case storage.ReadNotOlderThan:
		if err := s.waitFor(ctx, prefix, spec.ResourceVersion); err != nil {
			return nil, err
		}
	}
	start := s.etcdKey(prefix)
	if spec.From != "" {
		start = s.etcdKey(spec.From) // under prefix: ResolveList made it so
	}
	end := clientv3.GetPrefixRangeEnd(s.etcdKey(prefix))
	filtered := !opts.Predicate.Empty()

	res := &storage.ListResult{Items: []scheme.Object{}}
	var lastKey string
	for {
		chunk := int64(listChunk)
		if opts.Limit > 0 && !filtered {
			chunk = min(opts.Limit-int64(len(res.Items)), listChunk)
		}
		ropts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(chunk)}
		if rev != 0 {
			ropts = append(ropts, clientv3.WithRev(rev))
		}
		var resp *clientv3.GetResponse
		if err := s.call(ctx, prefix, func(ctx context.Context) (err error) {
			resp, err = s.client.Get(ctx, start, ropts...)
			if err != nil && rev != 0 {
				if rerr := revisionError(err, prefix, uint64(rev)); rerr != nil {
					return rerr
				}
			}
			return err
		}); err != nil {
			return nil, err
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		full := false
		for i, kv := range resp.Kvs {
			key := s.storageKey(kv.Key)
			lastKey = key
			obj, err := s.decode(key, kv)
			if err != nil {
				return nil, err
			}
			if filtered {
				ok, err := opts.Predicate.Matches(obj)
				if err != nil {
					return nil, storage.WithKey(err, key)
				}
				if !ok {
					continue
				}
			}
			res.Items = append(res.Items, obj)
			if opts.Limit > 0 && int64(len(res.Items)) == opts.Limit {
				full = true
				// More follows if this range had keys after this one or etcd has more.
				more := i < len(resp.Kvs)-1 || resp.More
				if more {
					if res.Continue, err = storage.EncodeContinue(uint64(rev), prefix, key); err != nil {
						return nil, storage.WithKey(err, prefix)
					}
					if !filtered {
						remaining := resp.Count - int64(i+1)
						res.RemainingItemCount = &remaining
					}
				}
				break
			}
		}
		if full || !resp.More || len(resp.Kvs) == 0 {
			break
		}
		start = s.etcdKey(lastKey) + "\x00"
	}
	res.ResourceVersion = storage.FormatResourceVersion(uint64(rev))
	return res, nil
}
