package memory_test

import (
	"testing"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// The shared backend benchmarks of storagetest, on the memory backend:
//
//	go test ./storage/memory -run '^$' -bench . -benchtime=2000x
func newBenchStore(b *testing.B) storage.Interface {
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	return s
}

func BenchmarkWrites(b *testing.B) { storagetest.BenchmarkWrites(b, newBenchStore) }

func BenchmarkList(b *testing.B) { storagetest.BenchmarkList(b, newBenchStore) }

func BenchmarkWatchFanOut(b *testing.B) { storagetest.BenchmarkWatchFanOut(b, newBenchStore) }
