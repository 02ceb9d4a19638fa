package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
)

// deepCRD is a CRD of kind Deep<suffix> whose spec nests depth objects, each the only
// property "a" of the one above: about 37 bytes a level.
func deepCRD(suffix string, depth int) string {
	schema := strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth)
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"deep` + suffix + `s.deep.example.com"},
  "spec":{"group":"deep.example.com","scope":"Namespaced",
    "names":{"plural":"deep` + suffix + `s","singular":"deep` + suffix + `","kind":"Deep` + suffix + `"},
    "versions":[{"name":"v1","served":true,"storage":true,
      "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":` + schema + `}}}}]}}`
}

// cost is what one piece of work took: wall time (for the log only: the machine is
// shared), bytes allocated, the heap's peak above where it started, and what it still
// held after a collection.
type cost struct {
	wall        time.Duration
	alloc, peak uint64
	held        int64
}

func (c cost) String() string {
	const mib = 1 << 20
	return time.Duration(c.wall).Round(time.Millisecond).String() + ", " +
		strconvMiB(float64(c.alloc)/mib) + " allocated, peak heap +" + strconvMiB(float64(c.peak)/mib) + ", held +" + strconvMiB(float64(c.held)/mib)
}

func strconvMiB(f float64) string {
	b, _ := json.Marshal(float64(int(f*10)) / 10)
	return string(b) + " MiB"
}

// measure runs f and returns its cost; the heap is sampled every millisecond.
func measure(f func()) cost {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var mu sync.Mutex // metrics.Read is not safe for concurrent use of one sample
	heap := func() uint64 {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	base := heap()
	var peak uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak = max(peak, heap())
			}
		}
	}()
	start := time.Now()
	f()
	c := cost{wall: time.Since(start)}
	close(done)
	<-stopped
	runtime.ReadMemStats(&m1)
	c.alloc = m1.TotalAlloc - m0.TotalAlloc
	if peak = max(peak, heap()); peak > base {
		c.peak = peak - base
	}
	runtime.GC()
	c.held = int64(heap()) - int64(base)
	return c
}

// A CRD's schema may nest as deep as JSON's limit of 10,000 levels allows (kube's
// decoder has the same limit, and apiextensions no other): a 4,900-level schema took
// seconds and a gigabyte to create because decoding it was quadratic in its depth.
// Creating and establishing a deep CRD, deriving its OpenAPI document and creating an
// object as deep cost the same a level at any depth.
func TestCRD_DeepSchemasCostTheSameALevelAtAnyDepth(t *testing.T) {
	s := newServer(t)
	steps := []string{"create and establish the CRD", "get its OpenAPI v3 document", "create an object as deep"}
	perLevel := map[string]map[int]float64{}
	for _, depth := range []int{1000, 4000} {
		suffix := map[int]string{1000: "a", 4000: "b"}[depth]
		crd := deepCRD(suffix, depth)
		obj := `{"apiVersion":"deep.example.com/v1","kind":"Deep` + suffix + `","metadata":{"name":"o"},"spec":` +
			strings.Repeat(`{"a":`, depth) + `"x"` + strings.Repeat(`}`, depth) + `}`
		for _, step := range steps {
			var code int
			c := measure(func() {
				switch step {
				case steps[0]:
					var in apiextensions.CustomResourceDefinition
					if err := json.Unmarshal([]byte(crd), &in); err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					if err := s.h.Apply(ctx, &in); err != nil {
						t.Fatal(err)
					}
					code = http.StatusCreated
				case steps[1]:
					code, _ = s.do("GET", "/openapi/v3/apis/deep.example.com/v1", "")
				case steps[2]:
					code, _ = s.do("POST", "/apis/deep.example.com/v1/namespaces/default/deep"+suffix+"s", obj)
				}
			})
			if code != http.StatusOK && code != http.StatusCreated {
				t.Fatalf("depth %d: %s: %d", depth, step, code)
			}
			if perLevel[step] == nil {
				perLevel[step] = map[int]float64{}
			}
			perLevel[step][depth] = float64(c.alloc) / float64(depth)
			t.Logf("depth %d (a %d-byte CRD): %s: %s", depth, len(crd), step, c)
		}
	}
	for _, step := range steps {
		if ratio := perLevel[step][4000] / perLevel[step][1000]; ratio > 1.5 {
			t.Errorf("%s: a level costs %.1f times more at depth 4000 than at 1000, want the same", step, ratio)
		}
	}
}
