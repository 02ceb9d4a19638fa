package rest_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heapPeak samples the bytes of live and not yet swept heap objects while it runs,
// keeping the largest.
type heapPeak struct {
	stop    chan struct{}
	done    sync.WaitGroup
	peak    atomic.Uint64
	samples atomic.Int64
}

const heapObjects = "/memory/classes/heap/objects:bytes"

func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapPeak() *heapPeak {
	p := &heapPeak{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(50 * time.Microsecond)
		defer t.Stop()
		for {
			if v := heapNow(); v > p.peak.Load() {
				p.peak.Store(v)
			}
			p.samples.Add(1)
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *heapPeak) end() uint64 {
	close(p.stop)
	p.done.Wait()
	return p.peak.Load()
}

// BenchmarkList_PeakMemoryPerEncodedByte lists 3,000 widgets over a memory store and
// reports how much the server's heap grows at its peak during one list, per byte of the
// encoded response (peak/encoded): a response built whole holds the converted list, its
// encoding and the compressed copy; a streamed one a bounded window. The widgets are of
// 10 KB each, mostly one annotation (issue 16's workload), or of 1 KB in many small
// fields as httpload writes them (shared/bench/httpload), where a copy of each item
// costs more than its encoding. The garbage collector runs at GOGC=10 while measuring,
// so that the peak is what the request holds rather than garbage awaiting collection.
// The client in the same process reads the body into io.Discard without decoding it.
//
//	go test -run '^$' -bench BenchmarkList_PeakMemoryPerEncodedByte -benchtime 5x ./rest/
func BenchmarkList_PeakMemoryPerEncodedByte(b *testing.B) {
	for _, shape := range []struct {
		name   string
		create func(*testServer)
	}{
		{"10KB", func(s *testServer) { s.createWidgets(3000, 10<<10) }},
		{"1KB-fields", func(s *testServer) { s.createFieldyWidgets(3000) }},
	} {
		b.Run(shape.name, func(b *testing.B) {
			srv := newServer(b, nil)
			shape.create(srv)
			benchmarkListPeakMemory(b, srv)
		})
	}
}

// createFieldyWidgets stores n widgets shaped as httpload's: about 1 KB of JSON in
// four labels, one 621-character annotation and five parts.
func (s *testServer) createFieldyWidgets(n int) {
	s.t.Helper()
	for i := range n {
		rnd := rand.New(rand.NewPCG(uint64(i), 1))
		noteBytes := make([]byte, 621)
		for j := range noteBytes {
			noteBytes[j] = 'a' + byte(rnd.IntN(26)) // hardly compressible, as real data is
		}
		note := string(noteBytes)
		body := fmt.Sprintf(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w-%06d","labels":{"app":"httpload","shard":"%d","tier":"backend","team":"bench"},"annotations":{"httpload.bench/note":%q}},"spec":{"color":"red","replicas":%d,"parts":[{"name":"p0","count":1},{"name":"p1","count":2},{"name":"p2","count":3},{"name":"p3","count":4},{"name":"p4","count":5}]}}`, i, i%10, note, i%5)
		if res := s.do(http.MethodPost, widgetsPath, "application/json", body); res.code != http.StatusCreated {
			s.t.Fatalf("create %d: %d %s", i, res.code, res.body)
		}
	}
}

func benchmarkListPeakMemory(b *testing.B, srv *testServer) {
	for _, c := range []struct{ name, accept, encoding string }{
		{"json", "application/json", "identity"},
		{"json+gzip", "application/json", "gzip"},
		{"protobuf", "application/vnd.kubernetes.protobuf", "identity"},
		{"cbor", "application/cbor", "identity"},
		{"table", "application/json;as=Table;g=meta.k8s.io;v=v1", "identity"},
		{"yaml", "application/yaml", "identity"},
		{"partialmetadata+protobuf", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "identity"},
	} {
		b.Run(c.name, func(b *testing.B) {
			list := func() int64 {
				req, err := http.NewRequest(http.MethodGet, srv.url+widgetsPath, nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Accept", c.accept)
				req.Header.Set("Accept-Encoding", c.encoding)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				defer res.Body.Close()
				n, err := io.Copy(io.Discard, res.Body)
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("list: %d, %v", res.StatusCode, err)
				}
				return n
			}
			list() // warm pools and caches
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			var worst float64
			var encoded int64
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				base := heapNow()
				p := startHeapPeak()
				encoded = list()
				peak := p.end()
				growth := float64(0)
				if peak > base {
					growth = float64(peak - base)
				}
				worst = max(worst, growth/float64(encoded))
			}
			b.ReportMetric(worst, "peak/encoded")
			b.ReportMetric(float64(encoded)/(1<<20), "encoded-MiB")
		})
	}
}

// TestHeapPeak_SeesAnAllocationHeldDuringTheMeasurement keeps the benchmark's meter
// honest: a 64 MiB buffer held while it samples must show.
func TestHeapPeak_SeesAnAllocationHeldDuringTheMeasurement(t *testing.T) {
	runtime.GC()
	base := heapNow()
	p := startHeapPeak()
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	// Wait (bounded) for two samples taken after the allocation.
	for seen, i := p.samples.Load(), 0; p.samples.Load() < seen+2; i++ {
		if i == 1e8 {
			t.Fatal("the sampler took no sample")
		}
		runtime.Gosched()
	}
	runtime.KeepAlive(buf)
	peak := p.end()
	// The rest of the heap may shrink while sampling (tests running in parallel free
	// theirs), so the buffer must show above the smaller of the heap before and after.
	buf = nil
	runtime.GC()
	floor := min(base, heapNow())
	if peak < floor+64<<20 {
		t.Errorf("peak %d, want at least %d (the heap without the buffer was %d to %d)", peak, floor+64<<20, floor, base)
	}
}
