package rest_test

import (
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestList_YAMLHoldsAWindowNotTheWholeList is issue 23's YAML list at a small scale: a
// list built whole and converted by go-yaml held some 57 times its encoding at its
// peak (one list of 5,000 widgets took the server from 66 to 461 MiB). Streamed item
// by item, as JSON is, a list holds about one item and the buffers.
func TestList_YAMLHoldsAWindowNotTheWholeList(t *testing.T) {
	srv := newServer(t, nil)
	srv.createFieldyWidgets(400)
	for _, accept := range []string{"application/yaml", "application/yaml;as=Table;g=meta.k8s.io;v=v1"} {
		t.Run(accept, func(t *testing.T) {
			list := func() int64 {
				req, err := http.NewRequest(http.MethodGet, srv.url+widgetsPath, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Accept", accept)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				n, err := io.Copy(io.Discard, res.Body)
				if err != nil || res.StatusCode != http.StatusOK {
					t.Fatalf("list: %d, %v", res.StatusCode, err)
				}
				return n
			}
			list() // warm pools and caches
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			runtime.GC()
			base := heapNow()
			p := startHeapPeak()
			encoded := list()
			peak := p.end()
			growth := int64(0)
			if peak > base {
				growth = int64(peak - base)
			}
			t.Logf("%d bytes of YAML, heap grew by %d bytes at its peak (%.2f per byte)", encoded, growth, float64(growth)/float64(encoded))
			if limit := 2*encoded + 4<<20; growth > limit {
				t.Errorf("heap grew by %d bytes for a list of %d bytes, over %d: the list was held whole", growth, encoded, limit)
			}
		})
	}
}
