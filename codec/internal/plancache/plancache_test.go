package plancache

import (
	"sync"
	"sync/atomic"
	"testing"
)

// plan is a toy compiled plan: it returns its depth, following a self reference.
type plan func(depth int) int

func TestGet_BuildsOnceAndARecursivePlanReachesTheFinishedOne(t *testing.T) {
	var cache sync.Map
	var builds atomic.Int32
	var build func(key string) plan
	forward := func(get func() plan) plan { return func(d int) int { return get()(d) } }
	build = func(key string) plan {
		builds.Add(1)
		self := Get(&cache, key, build, forward) // the type refers to itself
		return func(d int) int {
			if d == 3 {
				return d
			}
			return self(d + 1)
		}
	}
	var wg sync.WaitGroup
	results := make([]int, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = Get(&cache, "node", build, forward)(0)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r != 3 {
			t.Errorf("caller %d: plan returned %d, want 3", i, r)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times, want once", n)
	}
}
