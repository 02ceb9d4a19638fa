package validation

import (
	"strconv"
	"strings"
)

// Path is the path from a root to one field of an object, rendered the way
// Kubernetes does: "spec.parts[2].name", "metadata.labels[app]". Paths are immutable
// and share their parents, so building children in a loop is cheap. A nil *Path
// renders as "<nil>".
type Path struct {
	name   string // the field name, or "" when this element is a subscript
	index  string // the subscript (list index or map key) when name is ""
	parent *Path  // nil at the root
}

// NewPath returns a root path, followed by more field names if given:
// NewPath("metadata", "name") renders "metadata.name".
func NewPath(root string, more ...string) *Path {
	p := &Path{name: root}
	for _, name := range more {
		p = &Path{name: name, parent: p}
	}
	return p
}

// Root returns the first element of the path.
func (p *Path) Root() *Path {
	for p.parent != nil {
		p = p.parent
	}
	return p
}

// Child returns the path to a field below p (and further fields below it, if given).
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{name: name, parent: p}
	for _, n := range more {
		c = &Path{name: n, parent: c}
	}
	return c
}

// Index returns the path to the i-th element of the list at p: "spec.parts[2]".
func (p *Path) Index(i int) *Path {
	return &Path{index: strconv.Itoa(i), parent: p}
}

// Key returns the path to the value under key k of the map at p: "metadata.labels[app]".
// The key is written as is, without quoting, as Kubernetes does.
func (p *Path) Key(k string) *Path {
	return &Path{index: k, parent: p}
}

// String renders the path: field names joined by dots, subscripts in brackets.
func (p *Path) String() string {
	if p == nil {
		return "<nil>"
	}
	n := 0
	size := 0
	for e := p; e != nil; e = e.parent {
		n++
		size += len(e.name) + len(e.index) + 2
	}
	elems := make([]*Path, n)
	for e := p; e != nil; e = e.parent {
		n--
		elems[n] = e
	}
	var b strings.Builder
	b.Grow(size)
	for _, e := range elems {
		if e.name == "" {
			b.WriteByte('[')
			b.WriteString(e.index)
			b.WriteByte(']')
			continue
		}
		if e.parent != nil {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	return b.String()
}
