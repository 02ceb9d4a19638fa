package memory_test

import (
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		s := memory.New(memory.Options{FutureWait: 50 * time.Millisecond})
		t.Cleanup(s.Close)
		return s
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}
