package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// The BenchmarkEtcd_* benchmarks run one operation through storage/etcd ("apikit") and
// the same etcd request straight through clientv3 ("clientv3") against one embedded
// etcd, side by side: the difference is what the Store adds per request (encoding,
// decoding, the read of a read-modify-write, error mapping). Compare with
//
//	go test -run '^$' -bench 'BenchmarkEtcd_' -benchmem -count 6 ./e2e | benchstat -col /via -
func benchEtcd(b *testing.B) (*etcdstore.Store, *clientv3.Client, etcdstore.Codec, string) {
	b.Helper()
	e := startTestEtcd(b)
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	codec := etcdstore.NewCodec(s)
	prefix := fmt.Sprintf("/bench-%d", prefixes.Add(1))
	st := newEtcdStore(b, e, etcdstore.Options{Prefix: prefix, Codec: codec})
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return st, c, codec, prefix
}

func BenchmarkEtcd_Create(b *testing.B) {
	st, c, codec, prefix := benchEtcd(b)
	ctx := context.Background()
	// Names never repeat, however often the sub-benchmarks run on this etcd.
	var n atomic.Int64
	b.Run("via=apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			name := fmt.Sprintf("a%d", n.Add(1))
			if _, err := st.Create(ctx, storage.Key(storagetest.Widgets, "ns1", name), storagetest.NewWidget("ns1", name, nil, 1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	data, err := codec.Encode(storagetest.NewWidget("ns1", "c", nil, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("via=clientv3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			key := prefix + storage.Key(storagetest.Widgets, "ns1", fmt.Sprintf("c%d", n.Add(1)))
			resp, err := c.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).Then(clientv3.OpPut(key, string(data))).Commit()
			if err != nil || !resp.Succeeded {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEtcd_Get(b *testing.B) {
	st, c, _, prefix := benchEtcd(b)
	ctx := context.Background()
	key := storage.Key(storagetest.Widgets, "ns1", "a")
	if _, err := st.Create(ctx, key, storagetest.NewWidget("ns1", "a", map[string]string{"app": "bench"}, 1)); err != nil {
		b.Fatal(err)
	}
	b.Run("via=apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Get(ctx, key, storage.GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("via=clientv3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.Get(ctx, prefix+key)
			if err != nil || len(resp.Kvs) != 1 {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEtcd_Update(b *testing.B) {
	st, c, codec, prefix := benchEtcd(b)
	ctx := context.Background()
	key := storage.Key(storagetest.Widgets, "ns1", "a")
	if _, err := st.Create(ctx, key, storagetest.NewWidget("ns1", "a", nil, 0)); err != nil {
		b.Fatal(err)
	}
	// Through the watch cache, as the example server runs: the update starts from the
	// cached object instead of a read (UpdateOptions.CachedExisting) and returns once
	// the cache holds the write.
	wc, err := cache.Start(b.Context(), st, cache.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(wc.Close)
	for name, s := range map[string]storage.Interface{"via=apikit": st, "via=apikit-cache": wc} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
					cur.(*storagetest.Widget).Spec.Size++
					return cur, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The same read-modify-write with the client alone: read the key, write new bytes
	// if it is still at the revision read.
	ek := prefix + key
	data, err := codec.Encode(storagetest.NewWidget("ns1", "a", nil, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("via=clientv3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := c.Get(ctx, ek)
			if err != nil || len(got.Kvs) != 1 {
				b.Fatal(err)
			}
			resp, err := c.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(ek), "=", got.Kvs[0].ModRevision)).Then(clientv3.OpPut(ek, string(data))).Commit()
			if err != nil || !resp.Succeeded {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEtcd_List lists a collection of 1,000 objects: through the Store (bounded
// ranges at one revision, each value decoded) and as one range straight through
// clientv3 (values left as bytes).
func BenchmarkEtcd_List(b *testing.B) {
	st, c, _, prefix := benchEtcd(b)
	ctx := context.Background()
	const objects = 1000
	for i := range objects {
		name := fmt.Sprintf("o%04d", i)
		if _, err := st.Create(ctx, storage.Key(storagetest.Widgets, "ns1", name), storagetest.NewWidget("ns1", name, map[string]string{"app": "bench"}, int64(i))); err != nil {
			b.Fatal(err)
		}
	}
	collection := storage.Prefix(storagetest.Widgets, "ns1")
	b.Run("via=apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := st.List(ctx, collection, storage.ListOptions{})
			if err != nil || len(res.Items) != objects {
				b.Fatal(err)
			}
		}
	})
	b.Run("via=clientv3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.Get(ctx, prefix+collection, clientv3.WithPrefix())
			if err != nil || len(resp.Kvs) != objects {
				b.Fatal(err)
			}
		}
	})
}
