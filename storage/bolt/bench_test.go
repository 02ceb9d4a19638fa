package bolt

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkCommit measures acknowledged Commit throughput with 1 KB values over a working
// set of 1000 keys, by one writer and by 16 concurrent writers, with fsync on (the
// production setting) and off. It reports writes/s and the mean records per transaction.
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
