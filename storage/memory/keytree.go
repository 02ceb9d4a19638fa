package memory

import "math/bits"

// keyTree is a copy-on-write B-tree of *entry ordered bytewise by key: the store's
// github.com/google/btree BTreeG[*entry] specialized for string keys. It compares keys
// directly (no less function, no closures) and, while descending, skips the prefix that
// every key of a subtree shares: store keys share long prefixes
// ("/group/resource/namespace/"), which a generic comparison rereads at every step.
//
// clone is O(1): both trees then share every node and copy one before writing it, as
// google/btree does. A tree is mutated by one goroutine at a time, but clone may run while
// other goroutines read the same tree: clone writes only cow, which readers never read.
type keyTree struct {
	root   *ktNode
	length int
	// cow owns the nodes this tree may write in place; any other node is shared with a
	// clone and is copied before it is written.
	cow *ktOwner
}

// ktOwner is a copy-on-write owner token. It has a size so that every token has its own
// address (distinct zero-size allocations may share one).
type ktOwner struct{ _ byte }

const (
	// ktMaxItems is the most items a node holds: the fan-out measured fastest for
	// insert plus delete at 20k and 100k store keys (see BenchmarkKeyTree).
	ktMaxItems = 63
	// ktMinItems is the fewest items a node other than the root holds.
	ktMinItems = ktMaxItems / 2
)

// ktNode is one node. items has one spare slot and children two, so that an insert
// may overflow a full node before it is split.
type ktNode struct {
	cow      *ktOwner
	n        int                      // items in use: items[:n], and children[:n+1] when internal
	children *[ktMaxItems + 2]*ktNode // nil in a leaf
	items    [ktMaxItems + 1]*entry
}

// newKeyTree returns an empty tree.
func newKeyTree() *keyTree { return &keyTree{cow: new(ktOwner)} }

// len returns the number of items.
func (t *keyTree) len() int { return t.length }

// clone returns a tree with the same items in O(1). Afterwards neither tree's writes show
// in the other. Both trees get new owner tokens, so all existing nodes become shared; it
// writes only t.cow, so it may run while other goroutines read t.
func (t *keyTree) clone() *keyTree {
	c := &keyTree{root: t.root, length: t.length, cow: new(ktOwner)}
	t.cow = new(ktOwner)
	return c
}

// mutable returns n if t owns it, else a copy of it that t owns.
func (t *keyTree) mutable(n *ktNode) *ktNode {
	if n.cow == t.cow {
		return n
	}
	c := &ktNode{cow: t.cow, n: n.n, items: n.items}
	if n.children != nil {
		ch := *n.children
		c.children = &ch
	}
	return c
}

func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// compareFrom compares a and b, which share their first i bytes, bytewise, and returns
// the sign of a - b and the length of their longest common prefix. It reads 8 bytes at a
// time (the byte loads combine into one) and is inlined, unlike runtime.cmpstring.
func compareFrom(a, b string, i int) (int, int) {
	n := min(len(a), len(b))
	for ; i+8 <= n; i += 8 {
		if x := load64(a, i) ^ load64(b, i); x != 0 {
			i += bits.TrailingZeros64(x) >> 3
			return int(a[i]) - int(b[i]), i
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i]), i
		}
	}
	return len(a) - len(b), n
}

// search returns the index of the first item of n whose key is >= key and whether it
// is equal. skip is a length every key of n shares with key as a prefix (true of every
// key between the bounds of n's subtree); comparisons start after it. The third result
// is such a length for child i.
//
// While searching, llcp and rlcp are key's common prefix lengths with the items that
// bound the remaining range: every item in the range shares min(llcp, rlcp) bytes with
// key, so each comparison skips them (the "mlr" binary search of suffix arrays).
func (n *ktNode) search(key string, skip int) (int, bool, int) {
	lo, hi := 0, n.n
	llcp, rlcp := skip, skip
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c, l := compareFrom(n.items[m].key, key, min(llcp, rlcp))
		switch {
		case c < 0:
			lo, llcp = m+1, l
		case c > 0:
			hi, rlcp = m, l
		default:
			return m, true, l
		}
	}
	return lo, false, min(llcp, rlcp)
}

// get returns the item with key.
func (t *keyTree) get(key string) (*entry, bool) {
	n := t.root
	skip := 0
	for n != nil {
		i, found, cskip := n.search(key, skip)
		if found {
			return n.items[i], true
		}
		if n.children == nil {
			break
		}
		n, skip = n.children[i], cskip
	}
	return nil, false
}

// replaceOrInsert inserts e, or replaces the item with e's key.
func (t *keyTree) replaceOrInsert(e *entry) {
	if t.root == nil {
		t.root = &ktNode{cow: t.cow, n: 1}
		t.root.items[0] = e
		t.length = 1
		return
	}
	t.root = t.mutable(t.root)
	if !t.insert(t.root, e, 0) {
		return
	}
	t.length++
	if t.root.n > ktMaxItems {
		left := t.root
		mid, right := t.split(left)
		root := &ktNode{cow: t.cow, n: 1, children: new([ktMaxItems + 2]*ktNode)}
		root.items[0] = mid
		root.children[0], root.children[1] = left, right
		t.root = root
	}
}

// insert adds e under n, which t owns, and reports whether it was added rather than
// replaced. A child it overflows is split; n itself may be left overflowing by one.
func (t *keyTree) insert(n *ktNode, e *entry, skip int) bool {
	i, found, skip := n.search(e.key, skip)
	if found {
		n.items[i] = e
		return false
	}
	if n.children == nil {
		copy(n.items[i+1:n.n+1], n.items[i:n.n])
		n.items[i] = e
		n.n++
		return true
	}
	c := n.children[i]
	if c.cow != t.cow {
		c = t.mutable(c)
		n.children[i] = c
	}
	if !t.insert(c, e, skip) {
		return false
	}
	if c.n > ktMaxItems {
		mid, right := t.split(c)
		copy(n.items[i+1:n.n+1], n.items[i:n.n])
		copy(n.children[i+2:n.n+2], n.children[i+1:n.n+1])
		n.items[i] = mid
		n.children[i+1] = right
		n.n++
	}
	return true
}

// split moves the upper half of the overflowing n, which t owns, to a new node and
// returns the middle item and that node.
func (t *keyTree) split(n *ktNode) (*entry, *ktNode) {
	const m = (ktMaxItems + 1) / 2
	r := &ktNode{cow: t.cow, n: n.n - m - 1}
	mid := n.items[m]
	copy(r.items[:], n.items[m+1:n.n])
	clear(n.items[m:n.n])
	if n.children != nil {
		r.children = new([ktMaxItems + 2]*ktNode)
		copy(r.children[:], n.children[m+1:n.n+1])
		clear(n.children[m+1 : n.n+1])
	}
	n.n = m
	return mid, r
}

// delete removes the item with key and returns it.
func (t *keyTree) delete(key string) (*entry, bool) {
	if t.root == nil {
		return nil, false
	}
	root, out, ok := t.remove(t.root, key, 0)
	if !ok {
		return nil, false
	}
	t.length--
	if root.n == 0 {
		if root.children != nil {
			root = root.children[0]
		} else {
			root = nil
		}
	}
	t.root = root
	return out, true
}

// remove removes the item with key under n and returns n as t owns it (n itself, or its
// copy if it was shared) with the item. A node is copied only once the key is found under
// it. n may be left with fewer than ktMinItems items; its parent rebalances it.
func (t *keyTree) remove(n *ktNode, key string, skip int) (*ktNode, *entry, bool) {
	i, found, skip := n.search(key, skip)
	if n.children == nil {
		if !found {
			return n, nil, false
		}
		n = t.mutable(n)
		out := n.items[i]
		copy(n.items[i:n.n-1], n.items[i+1:n.n])
		n.n--
		n.items[n.n] = nil
		return n, out, true
	}
	var out *entry
	var c *ktNode
	if found {
		// An internal item is replaced by its predecessor, the last item under child i.
		n = t.mutable(n)
		out = n.items[i]
		c, n.items[i] = t.removeMax(n.children[i])
	} else {
		var ok bool
		if c, out, ok = t.remove(n.children[i], key, skip); !ok {
			return n, nil, false
		}
		n = t.mutable(n)
	}
	n.children[i] = c
	if c.n < ktMinItems {
		t.rebalance(n, i)
	}
	return n, out, true
}

// removeMax removes the last item under n and returns n as t owns it with the item.
func (t *keyTree) removeMax(n *ktNode) (*ktNode, *entry) {
	n = t.mutable(n)
	if n.children == nil {
		n.n--
		out := n.items[n.n]
		n.items[n.n] = nil
		return n, out
	}
	i := n.n
	c, out := t.removeMax(n.children[i])
	n.children[i] = c
	if c.n < ktMinItems {
		t.rebalance(n, i)
	}
	return n, out
}

// rebalance refills child i of n, which has fewer than ktMinItems items, by borrowing an
// item from a sibling that can spare one, else by merging it with a sibling. n and child
// i are owned by t.
func (t *keyTree) rebalance(n *ktNode, i int) {
	c := n.children[i]
	switch {
	case i > 0 && n.children[i-1].n > ktMinItems:
		// Rotate right: the separator comes down to c, left's last item goes up.
		left := t.mutable(n.children[i-1])
		n.children[i-1] = left
		copy(c.items[1:c.n+1], c.items[:c.n])
		c.items[0] = n.items[i-1]
		left.n--
		n.items[i-1] = left.items[left.n]
		left.items[left.n] = nil
		if c.children != nil {
			copy(c.children[1:c.n+2], c.children[:c.n+1])
			c.children[0] = left.children[left.n+1]
			left.children[left.n+1] = nil
		}
		c.n++
	case i < n.n && n.children[i+1].n > ktMinItems:
		// Rotate left: the separator comes down to c, right's first item goes up.
		right := t.mutable(n.children[i+1])
		n.children[i+1] = right
		c.items[c.n] = n.items[i]
		n.items[i] = right.items[0]
		copy(right.items[:right.n-1], right.items[1:right.n])
		right.items[right.n-1] = nil
		if c.children != nil {
			c.children[c.n+1] = right.children[0]
			copy(right.children[:right.n], right.children[1:right.n+1])
			right.children[right.n] = nil
		}
		right.n--
		c.n++
	default:
		// Merge with a sibling: both are at most ktMinItems, so the result fits.
		if i == n.n {
			i--
		}
		left := t.mutable(n.children[i])
		right := n.children[i+1]
		left.items[left.n] = n.items[i]
		copy(left.items[left.n+1:], right.items[:right.n])
		if left.children != nil {
			copy(left.children[left.n+1:], right.children[:right.n+1])
		}
		left.n += right.n + 1
		n.children[i] = left
		copy(n.items[i:n.n-1], n.items[i+1:n.n])
		copy(n.children[i+1:n.n], n.children[i+2:n.n+1])
		n.n--
		n.items[n.n] = nil
		n.children[n.n+1] = nil
	}
}

// ascendFrom calls fn for each item with key >= from, in order, until fn returns false.
func (t *keyTree) ascendFrom(from string, fn func(*entry) bool) {
	if t.root != nil {
		ascendFrom(t.root, from, 0, fn)
	}
}

func ascendFrom(n *ktNode, from string, skip int, fn func(*entry) bool) bool {
	i, found, skip := n.search(from, skip)
	if n.children == nil {
		for ; i < n.n; i++ {
			if !fn(n.items[i]) {
				return false
			}
		}
		return true
	}
	if !found {
		if !ascendFrom(n.children[i], from, skip, fn) {
			return false
		}
	}
	for ; i < n.n; i++ {
		if !fn(n.items[i]) || !ascendAll(n.children[i+1], fn) {
			return false
		}
	}
	return true
}

// ascendAll calls fn for each item under n, in order, until fn returns false.
func ascendAll(n *ktNode, fn func(*entry) bool) bool {
	if n.children == nil {
		for _, e := range n.items[:n.n] {
			if !fn(e) {
				return false
			}
		}
		return true
	}
	for i, e := range n.items[:n.n] {
		if !ascendAll(n.children[i], fn) || !fn(e) {
			return false
		}
	}
	return ascendAll(n.children[n.n], fn)
}
