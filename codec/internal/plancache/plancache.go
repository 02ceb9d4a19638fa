// Package plancache keeps the codecs' compiled plans (encoders and decoders built once per
// Go type) and builds each once, including those of types that refer to themselves.
package plancache

import "sync"

// Get returns the plan of key in cache, building it once with build. While it is built,
// a recursive type meets forward(get) instead: a plan that waits for the finished one and
// then runs it. Concurrent callers get the same plan.
func Get[K comparable, F any](cache *sync.Map, key K, build func(K) F, forward func(get func() F) F) F {
	if f, ok := cache.Load(key); ok {
		return f.(F)
	}
	get := sync.OnceValue(func() F { return build(key) })
	fi, loaded := cache.LoadOrStore(key, forward(get))
	if loaded {
		return fi.(F)
	}
	f := get()
	cache.Store(key, f)
	return f
}
