package memory

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/btree"
)

// ktKeys returns a key set that exercises every comparison path: keys with a long shared
// prefix, short keys, the empty key, keys that are prefixes of others, and bytes >= 0x80.
func ktKeys(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	add("")
	for len(keys) < n {
		switch r.IntN(6) {
		case 0: // store-like keys with a long shared prefix
			add(fmt.Sprintf("/toys.example.com/widgets/ns-%d/w-%d", r.IntN(4), r.IntN(n)))
		case 1: // short keys over a tiny alphabet, often prefixes of each other
			b := make([]byte, r.IntN(4))
			for i := range b {
				b[i] = "ab\x00\xff"[r.IntN(4)]
			}
			add(string(b))
		case 2: // a prefix of an existing key, or an existing key extended
			k := keys[r.IntN(len(keys))]
			if r.IntN(2) == 0 {
				add(k[:r.IntN(len(k)+1)])
			} else {
				add(k + string([]byte{byte(r.IntN(256))}))
			}
		case 3: // high bytes inside a shared prefix
			add(fmt.Sprintf("/x/\x80\xfe%c/%d", rune(0x80+r.IntN(3)), r.IntN(50)))
		case 4: // long keys differing after 8-byte boundaries
			p := strings.Repeat("abcdefgh", 1+r.IntN(3))
			b := []byte(p)
			b[r.IntN(len(b))] = byte(r.IntN(256))
			add(string(b))
		default: // random bytes
			b := make([]byte, r.IntN(12))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			add(string(b))
		}
	}
	return keys
}

// lessEntry orders the reference google/btree trees like keyTree.
func lessEntry(a, b *entry) bool { return a.key < b.key }

// ktPair is a keyTree and the google/btree it must always equal.
type ktPair struct {
	got  *keyTree
	want *btree.BTreeG[*entry]
}

func ktContents(t *keyTree) []*entry {
	var out []*entry
	t.ascendFrom("", func(e *entry) bool { out = append(out, e); return true })
	return out
}

func ktCheckEqual(tb testing.TB, step int, name string, p ktPair, r *rand.Rand, keys []string) {
	tb.Helper()
	var want []*entry
	p.want.Ascend(func(e *entry) bool { want = append(want, e); return true })
	if got := ktContents(p.got); !slices.Equal(got, want) {
		tb.Fatalf("step %d, %s: contents %s, want %s", step, name, ktKeyList(got), ktKeyList(want))
	}
	if p.got.len() != p.want.Len() {
		tb.Fatalf("step %d, %s: len %d, want %d", step, name, p.got.len(), p.want.Len())
	}
	ktCheckAscend(tb, step, name, p, r, keys)
}

// ktCheckAscend compares ascendFrom from random starts, stopping after a random count.
func ktCheckAscend(tb testing.TB, step int, name string, p ktPair, r *rand.Rand, keys []string) {
	tb.Helper()
	for range 2 {
		from := keys[r.IntN(len(keys))]
		if r.IntN(2) == 0 {
			from += "\x00"
		}
		limit := r.IntN(20)
		var got, want []*entry
		p.got.ascendFrom(from, func(e *entry) bool { got = append(got, e); return len(got) < limit })
		p.want.AscendGreaterOrEqual(&entry{key: from}, func(e *entry) bool { want = append(want, e); return len(want) < limit })
		if !slices.Equal(got, want) {
			tb.Fatalf("step %d, %s: ascendFrom(%q) stopping at %d gave %s, want %s", step, name, from, limit, ktKeyList(got), ktKeyList(want))
		}
	}
}

func ktKeyList(es []*entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%q ", e.key)
	}
	return b.String()
}

// ktHeight returns the height of t and checks the B-tree invariants: keys strictly
// ascending across the tree, every non-root node at least ktMinItems full, all leaves
// at one depth.
func ktHeight(tb testing.TB, t *keyTree) int {
	tb.Helper()
	if t.root == nil {
		return 0
	}
	var walk func(n *ktNode, root bool) int
	walk = func(n *ktNode, root bool) int {
		if n.n > ktMaxItems || (!root && n.n < ktMinItems) || n.n == 0 {
			tb.Fatalf("node holds %d items, want %d..%d", n.n, ktMinItems, ktMaxItems)
		}
		for i := n.n; i < len(n.items); i++ {
			if n.items[i] != nil {
				tb.Fatalf("unused item slot %d of a node holds %q: it would leak", i, n.items[i].key)
			}
		}
		if n.children == nil {
			return 1
		}
		h := walk(n.children[0], false)
		for i := 1; i <= n.n; i++ {
			if hi := walk(n.children[i], false); hi != h {
				tb.Fatalf("leaves at depths %d and %d", h, hi)
			}
		}
		return h + 1
	}
	h := walk(t.root, true)
	var prev *entry
	t.ascendFrom("", func(e *entry) bool {
		if prev != nil && prev.key >= e.key {
			tb.Fatalf("keys out of order: %q then %q", prev.key, e.key)
		}
		prev = e
		return true
	})
	return h
}

// TestKeyTree_MatchesGoogleBTreeUnderRandomOperationsAndClones runs random writes, reads
// and clones on keyTrees and on google/btree trees side by side. The key set is large
// enough for three levels, and the mix of writes swings from growing to shrinking so
// that splits, borrows and merges happen at every level, in shared and owned nodes.
func TestKeyTree_MatchesGoogleBTreeUnderRandomOperationsAndClones(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, seed*7919))
			keys := ktKeys(r, 6000)
			trees := []ktPair{{newKeyTree(), btree.NewG(32, lessEntry)}}
			// Start three levels deep, then let the random writes shrink and regrow it.
			for _, k := range keys[:4500] {
				e := &entry{key: k}
				trees[0].got.replaceOrInsert(e)
				trees[0].want.ReplaceOrInsert(e)
			}
			const steps = 10000
			maxHeight := 0
			for step := range steps {
				p := trees[r.IntN(len(trees))]
				key := keys[r.IntN(len(keys))]
				// Deletes outweigh inserts in the first and third quarters, and the
				// other way round in the second and fourth.
				insertShare := 25
				if step/(steps/4)%2 == 1 {
					insertShare = 75
				}
				switch op := r.IntN(100); {
				case op < insertShare*9/10:
					e := &entry{key: key, rv: uint64(step)}
					p.got.replaceOrInsert(e)
					p.want.ReplaceOrInsert(e)
				case op < 90:
					got, gok := p.got.delete(key)
					want, wok := p.want.Delete(&entry{key: key})
					if got != want || gok != wok {
						t.Fatalf("step %d: delete(%q) = %v, %v; want %v, %v", step, key, got, gok, want, wok)
					}
				case op < 99:
					got, gok := p.got.get(key)
					want, wok := p.want.Get(&entry{key: key})
					if got != want || gok != wok {
						t.Fatalf("step %d: get(%q) = %v, %v; want %v, %v", step, key, got, gok, want, wok)
					}
				default:
					c := ktPair{p.got.clone(), p.want.Clone()}
					if len(trees) < 5 {
						trees = append(trees, c)
					} else {
						trees[r.IntN(len(trees))] = c
					}
				}
				ktCheckAscend(t, step, "tree", p, r, keys)
				if step%1000 == 0 || step == steps-1 {
					for i, p := range trees {
						ktCheckEqual(t, step, fmt.Sprintf("tree %d", i), p, r, keys)
						maxHeight = max(maxHeight, ktHeight(t, p.got))
					}
				}
			}
			if maxHeight < 3 {
				t.Errorf("the trees grew to height %d only: the test never exercised three levels", maxHeight)
			}
		})
	}
}

func TestKeyTree_MatchesGoogleBTreeOnStoreKeysThroughGrowthAndShrink(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	keys := ktBenchKeys(20000)
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	p := ktPair{newKeyTree(), btree.NewG(32, lessEntry)}
	var snaps []ktPair
	for i, k := range keys {
		e := &entry{key: k}
		p.got.replaceOrInsert(e)
		p.want.ReplaceOrInsert(e)
		if i%5000 == 0 {
			snaps = append(snaps, ktPair{p.got.clone(), p.want.Clone()})
		}
	}
	ktCheckEqual(t, 0, "filled", p, r, keys)
	for i, k := range keys[:19000] {
		got, gok := p.got.delete(k)
		want, wok := p.want.Delete(&entry{key: k})
		if got != want || gok != wok {
			t.Fatalf("delete %d (%q) = %v, %v; want %v, %v", i, k, got, gok, want, wok)
		}
	}
	ktCheckEqual(t, 1, "shrunk", p, r, keys)
	for i, s := range snaps {
		ktCheckEqual(t, 2, fmt.Sprintf("snapshot %d", i), s, r, keys)
	}
}

func TestKeyTree_CloneIsolatesBothTrees(t *testing.T) {
	contents := func(t *keyTree) []string {
		var ks []string
		for _, e := range ktContents(t) {
			ks = append(ks, e.key)
		}
		return ks
	}
	orig := newKeyTree()
	var all []string
	for i := range 500 {
		k := fmt.Sprintf("k%04d", i)
		all = append(all, k)
		orig.replaceOrInsert(&entry{key: k})
	}
	c := orig.clone()
	// The clone loses the even keys and gains "z"; the original loses the odd ones.
	var odd, even []string
	for i, k := range all {
		if i%2 == 0 {
			c.delete(k)
			even = append(even, k)
		} else {
			orig.delete(k)
			odd = append(odd, k)
		}
	}
	c.replaceOrInsert(&entry{key: "z"})
	replaced := &entry{key: "k0000", rv: 7}
	orig.replaceOrInsert(replaced)

	if got, want := contents(orig), even; !slices.Equal(got, want) {
		t.Errorf("original holds %v, want %v", got, want)
	}
	if got, want := contents(c), append(slices.Clone(odd), "z"); !slices.Equal(got, want) {
		t.Errorf("clone holds %v, want %v", got, want)
	}
	if e, _ := orig.get("k0000"); e != replaced {
		t.Errorf("original's k0000 is not the entry that replaced it")
	}
	if _, ok := c.get("k0000"); ok {
		t.Errorf("clone still holds k0000, which it deleted")
	}
	// A clone of a clone, and further writes, stay independent too.
	cc := c.clone()
	cc.replaceOrInsert(&entry{key: "k0000"})
	if _, ok := c.get("k0000"); ok {
		t.Errorf("a write to a clone's clone showed in the clone")
	}
	if orig.len() != 250 || c.len() != 251 || cc.len() != 252 {
		t.Errorf("lens %d, %d, %d; want 250, 251, 252", orig.len(), c.len(), cc.len())
	}
}

// TestKeyTree_CloneRacesWithReaders clones a tree over and over, writing to each clone,
// while other goroutines read the original: under -race this proves clone writes nothing
// readers read and that a clone's writes never touch shared nodes.
func TestKeyTree_CloneRacesWithReaders(t *testing.T) {
	orig := newKeyTree()
	for i := range 3000 {
		orig.replaceOrInsert(&entry{key: fmt.Sprintf("/toys.example.com/widgets/ns/w-%05d", i)})
	}
	const readers, rounds = 3, 200
	var wg sync.WaitGroup
	errs := make(chan string, readers+1)
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				k := fmt.Sprintf("/toys.example.com/widgets/ns/w-%05d", (i*37+g)%3000)
				if _, ok := orig.get(k); !ok {
					errs <- "get " + k + " failed"
					return
				}
				n := 0
				orig.ascendFrom(k, func(*entry) bool { n++; return n < 100 })
				if n != min(100, 3000-(i*37+g)%3000) {
					errs <- fmt.Sprintf("ascendFrom(%s) gave %d items", k, n)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rounds {
			c := orig.clone()
			for j := range 20 {
				k := fmt.Sprintf("/toys.example.com/widgets/ns/w-%05d", (i*131+j*17)%3000)
				c.delete(k)
				c.replaceOrInsert(&entry{key: k + "x"})
			}
			if c.len() != 3000 {
				errs <- fmt.Sprintf("clone holds %d items after equal deletes and inserts", c.len())
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if orig.len() != 3000 || len(ktContents(orig)) != 3000 {
		t.Errorf("original changed: %d items", orig.len())
	}
}

func TestKeyTree_HeightStaysLogarithmicAfterManyDeletes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	keys := ktBenchKeys(50000)
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	tr := newKeyTree()
	for _, k := range keys {
		tr.replaceOrInsert(&entry{key: k})
	}
	// The worst case for n items and minimum fan-out ktMinItems+1: 1 + log_{min+1}(n/2).
	bound := func(n int) int {
		h := 1
		for c := 2; c*(ktMinItems+1) <= n+1; c *= ktMinItems + 1 {
			h++
		}
		return h
	}
	if h := ktHeight(t, tr); h > bound(len(keys)) {
		t.Fatalf("height %d for %d items, want <= %d", h, len(keys), bound(len(keys)))
	}
	for _, left := range []int{20000, 2000, 100, 1, 0} {
		for _, k := range keys[left:] {
			tr.delete(k)
		}
		keys = keys[:left]
		if h := ktHeight(t, tr); h > bound(left) || tr.len() != left {
			t.Fatalf("height %d and len %d for %d items, want height <= %d", h, tr.len(), left, bound(left))
		}
	}
	if tr.root != nil {
		t.Errorf("an emptied tree keeps a root")
	}
}

func TestKeyTree_CompareFromMatchesBytewiseOrder(t *testing.T) {
	tests := []struct {
		a, b string
		from int
		sign int
		lcp  int
	}{
		{"", "", 0, 0, 0},
		{"", "abc", 0, -1, 0},
		{"abc", "", 0, 1, 0},
		{"abc", "abd", 0, -1, 2},
		{"abc", "abc", 1, 0, 3},
		{"abcdefghij", "abcdefghij", 0, 0, 10},
		{"abcdefghijk", "abcdefghiXk", 0, 1, 9},
		{"abcdefghijklmnopq", "abcdefghijklmnopq\x80", 0, -1, 17},
		{"abcdefgh\x00", "abcdefgh", 0, 1, 8},
		{"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf0\xf7", 0, 1, 7},
		{"\x7f", "\x80", 0, -1, 0},
		{"/toys.example.com/widgets/ns-1/w-10", "/toys.example.com/widgets/ns-1/w-2", 8, -1, 33},
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for _, tt := range tests {
		c, l := compareFrom(tt.a, tt.b, tt.from)
		if sign(c) != tt.sign || l != tt.lcp {
			t.Errorf("compareFrom(%q, %q, %d) = %d, %d; want sign %d, %d", tt.a, tt.b, tt.from, c, l, tt.sign, tt.lcp)
		}
		if want := strings.Compare(tt.a, tt.b); sign(c) != want {
			t.Errorf("compareFrom(%q, %q) has sign %d, strings.Compare %d", tt.a, tt.b, sign(c), want)
		}
	}
}

func ktBenchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("/toys.example.com/widgets/ns-%d/w-%d", i%10, i)
	}
	return keys
}

// ktImpl is what the benchmark drives both trees through.
type ktImpl struct {
	insert func(*entry)
	delete func(string)
	ascend func(from string, fn func(*entry) bool)
}

func ktApikit() ktImpl {
	t := newKeyTree()
	return ktImpl{
		insert: t.replaceOrInsert,
		delete: func(k string) { t.delete(k) },
		ascend: t.ascendFrom,
	}
}

func ktBTree() ktImpl {
	t := btree.NewG(32, lessEntry)
	return ktImpl{
		insert: func(e *entry) { t.ReplaceOrInsert(e) },
		delete: func(k string) { t.Delete(&entry{key: k}) },
		ascend: func(from string, fn func(*entry) bool) { t.AscendGreaterOrEqual(&entry{key: from}, fn) },
	}
}

// BenchmarkKeyTree compares keyTree with google/btree (degree 32, as the store uses it)
// on store-like keys inserted in random order, at n items:
//
//   - insert adds one of n/4 new keys to a tree of n (when they run out, they are deleted
//     again outside the timer);
//   - delete removes one of n/4 keys from a tree of n + n/4 (re-added outside the timer
//     when all are gone), so both work at n to n + n/4 items;
//   - replace overwrites one of the n keys; ascend500 iterates 500 items from one of them.
//
// Run with -benchtime Nx for N <= n/4, a phase has no refill, so instruction counts per
// op are (count(N+1) - count(1)) / N:
//
//	go test -run '^$' -bench KeyTree -count 6 -cpu 1 . > /tmp/kt.txt; benchstat -col /impl /tmp/kt.txt
func BenchmarkKeyTree(b *testing.B) {
	impls := []struct {
		name string
		make func() ktImpl
	}{{"apikit", ktApikit}, {"btree", ktBTree}}
	for _, op := range []string{"insert", "delete", "replace", "ascend500"} {
		b.Run("op="+op, func(b *testing.B) {
			for _, n := range []int{20000, 100000} {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, 2))
					all := ktBenchKeys(n + n/4)
					r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
					entries := make([]*entry, len(all))
					for i, k := range all {
						entries[i] = &entry{key: k}
					}
					base, extra := entries[:n], entries[n:]
					for _, impl := range impls {
						b.Run("impl="+impl.name, func(b *testing.B) {
							tr := impl.make()
							for _, e := range base {
								tr.insert(e)
							}
							b.ReportAllocs()
							i := 0
							switch op {
							case "insert":
								for b.Loop() {
									if i == len(extra) {
										b.StopTimer()
										for _, e := range extra {
											tr.delete(e.key)
										}
										i = 0
										b.StartTimer()
									}
									tr.insert(extra[i])
									i++
								}
							case "delete":
								for _, e := range extra {
									tr.insert(e)
								}
								for b.Loop() {
									if i == len(extra) {
										b.StopTimer()
										for _, e := range extra {
											tr.insert(e)
										}
										i = 0
										b.StartTimer()
									}
									tr.delete(extra[i].key)
									i++
								}
							case "replace":
								for b.Loop() {
									tr.insert(base[i%n])
									i++
								}
							case "ascend500":
								for b.Loop() {
									c := 0
									tr.ascend(base[i%n].key, func(*entry) bool { c++; return c < 500 })
									i++
								}
							}
						})
					}
				})
			}
		})
	}
}
