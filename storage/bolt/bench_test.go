package bolt

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// BenchmarkCommit measures acknowledged Commit throughput with 1 KB values over a working
// set of 1000 keys, by one writer and by 16 concurrent writers, with fsync on (the
// production setting) and off. It reports writes/s and the mean records per group commit
// (a write-ahead log frame; "records/tx" keeps the name it had when a group was a bbolt
// transaction, so that runs compare).
//
//	go test ./storage/bolt -run '^$' -bench Commit -benchtime=2000x
func BenchmarkCommit(b *testing.B) {
	value := bytes.Repeat([]byte("x"), 1024)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = keyOf(uint64(i))
	}
	for _, sync := range []bool{true, false} {
		for _, writers := range []int{1, 16} {
			name := fmt.Sprintf("writers=%d/fsync=%t", writers, sync)
			b.Run(name, func(b *testing.B) {
				l, err := Open(filepath.Join(b.TempDir(), "log.db"), Options{NoSync: !sync})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				var txs atomic.Int64
				l.testHook = func(int, uint64, uint64) error { txs.Add(1); return nil }

				b.ReportAllocs()
				b.ResetTimer()
				if writers == 1 {
					benchSequential(b, l, keys, value)
				} else {
					benchConcurrent(b, l, writers, keys, value)
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
				b.ReportMetric(float64(b.N)/float64(max(txs.Load(), 1)), "records/tx")
			})
		}
	}
}

func benchSequential(b *testing.B, l *Log, keys []string, value []byte) {
	ctx := context.Background()
	for i := range b.N {
		rv := uint64(i + 1)
		if err := l.Commit(ctx, Record{Key: keys[i%len(keys)], Value: value, ResourceVersion: rv}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchConcurrent runs writers goroutines that share b.N writes, assigning versions and
// enqueueing under one lock and waiting outside it.
func benchConcurrent(b *testing.B, l *Log, writers int, keys []string, value []byte) {
	var (
		mu   sync.Mutex
		next uint64
		wg   sync.WaitGroup
	)
	ctx := context.Background()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= uint64(b.N) {
					mu.Unlock()
					return
				}
				next++
				p, err := l.Enqueue(Record{Key: keys[next%uint64(len(keys))], Value: value, ResourceVersion: next})
				mu.Unlock()
				if err == nil {
					err = p.Wait(ctx)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// newBenchStore opens a Store without fsync for the shared backend benchmarks of
// storagetest, which measure the engine and the codec; BenchmarkStoreAckedWrites
// measures durable writes.
func newBenchStore(b *testing.B) storage.Interface {
	s, err := New(filepath.Join(b.TempDir(), "state.db"), Options{Codec: testCodec(), NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkStoreWrites is storagetest.BenchmarkWrites (create, get, update of a 1.5 KB
// object among 10,000) on a Store without fsync:
//
//	go test ./storage/bolt -run '^$' -bench 'Store' -benchtime=2000x
func BenchmarkStoreWrites(b *testing.B) { storagetest.BenchmarkWrites(b, newBenchStore) }

// BenchmarkStoreList is storagetest.BenchmarkList on a Store (lists are served by the
// memory engine; -short skips the 100,000-object cases).
func BenchmarkStoreList(b *testing.B) { storagetest.BenchmarkList(b, newBenchStore) }

// BenchmarkStoreAckedWrites measures acknowledged Creates of 1.5 KB objects per second
// with fsync on, by 1 writer and by 16 concurrent writers sharing group commits.
func BenchmarkStoreAckedWrites(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d/fsync=true", writers), func(b *testing.B) {
			s, err := New(filepath.Join(b.TempDir(), "state.db"), Options{Codec: testCodec()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var txs atomic.Int64
			s.log.testHook = func(int, uint64, uint64) error { txs.Add(1); return nil }
			objs := make([]*storagetest.Widget, b.N)
			for i := range objs {
				objs[i] = storagetest.BenchWidget("bench", fmt.Sprintf("w-%07d", i), i)
			}
			var next atomic.Int64
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1)) - 1
						if i >= b.N {
							return
						}
						w := objs[i]
						if _, err := s.Create(ctx, storage.Key(storagetest.Widgets, w.Namespace, w.Name), w); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			b.ReportMetric(float64(b.N)/float64(max(txs.Load(), 1)), "records/tx")
		})
	}
}

// BenchmarkStoreWatchFanOut is storagetest's watch delivery benchmark on bolt (without
// fsync, so that it measures delivery rather than the disk).
func BenchmarkStoreWatchFanOut(b *testing.B) {
	storagetest.BenchmarkWatchFanOut(b, newBenchStore)
}
