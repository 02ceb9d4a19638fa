package strategies

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// kube renders a struct that is a field error's bad value, and both specs in the diff
// of a refused pod update, with encoding/json on its internal types, which have no
// json tags: the Go field names, every field (nil pointers and slices as null), the
// fields in declaration order. The internal core types of v1.37 have the fields of
// k8s.io/api's in the same order, so the same rendering of apikit's v1 types gives
// kube's text. Types that are apimachinery's in kube (meta/v1, scheme's metadata)
// keep their json tags, and types with their own JSON form (quantities, int-or-string)
// keep it.

// goJSON is a bad value rendered as kube renders its internal struct.
type goJSON struct{ v any }

// MarshalJSON renders the value with Go field names.
func (g goJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeGoJSON(&b, reflect.ValueOf(g.v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// badStruct wraps a struct (or pointer to one) used as a field error's value.
func badStruct(v any) any { return goJSON{v} }

var marshalerType = reflect.TypeFor[json.Marshaler]()

// keepsJSONTags reports whether t is one of the types kube renders with their json
// tags: apimachinery's, which apikit keeps in scheme and builtin/meta/v1.
func keepsJSONTags(t reflect.Type) bool {
	p := t.PkgPath()
	return strings.HasSuffix(p, "/builtin/meta/v1") || strings.HasSuffix(p, "apikit/scheme")
}

func writeGoJSON(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	t := v.Type()
	if t.Implements(marshalerType) || keepsJSONTags(t) && t.Kind() == reflect.Struct {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			b.WriteString("null")
			return nil
		}
		out, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(out)
		return nil
	}
	if v.CanAddr() && reflect.PointerTo(t).Implements(marshalerType) {
		out, err := json.Marshal(v.Addr().Interface())
		if err != nil {
			return err
		}
		b.Write(out)
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return writeGoJSON(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		if err := writeGoFields(b, v, &first); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			out, err := json.Marshal(v.Interface())
			if err != nil {
				return err
			}
			b.Write(out)
			return nil
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeGoJSON(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(x, y int) int { return strings.Compare(names[x], names[y]) })
		b.WriteByte('{')
		for n, i := range order {
			if n > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(names[i])
			b.Write(k)
			b.WriteByte(':')
			if err := writeGoJSON(b, v.MapIndex(keys[i])); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	out, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// writeGoFields writes the exported fields of struct v, embedded structs inlined as
// encoding/json inlines an untagged embedded struct.
func writeGoFields(b *bytes.Buffer, v reflect.Value, first *bool) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && !keepsJSONTags(f.Type) && !f.Type.Implements(marshalerType) {
			if err := writeGoFields(b, fv, first); err != nil {
				return err
			}
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct && keepsJSONTags(f.Type) {
			// An embedded TypeMeta or ObjectMeta: its JSON members, promoted as
			// encoding/json promotes them (a PersistentVolumeClaim template's name).
			out, err := json.Marshal(fv.Interface())
			if err != nil {
				return err
			}
			if members := bytes.TrimSpace(out[1 : len(out)-1]); len(members) > 0 {
				if !*first {
					b.WriteByte(',')
				}
				*first = false
				b.Write(members)
			}
			continue
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		b.WriteString(strconv.Quote(f.Name))
		b.WriteByte(':')
		if err := writeGoJSON(b, fv); err != nil {
			return err
		}
	}
	return nil
}

// goJSONIndent is json.MarshalIndent(v, "", " ") of kube's internal rendering of v.
func goJSONIndent(v any) string {
	var compact, out bytes.Buffer
	if err := writeGoJSON(&compact, reflect.ValueOf(v)); err != nil {
		return ""
	}
	if err := json.Indent(&out, compact.Bytes(), "", " "); err != nil {
		return ""
	}
	return out.String()
}

// unifiedDiff is the unified diff with three lines of context that apimachinery's
// diff.Diff prints (github.com/pmezard/go-difflib without file names): Python
// difflib's SequenceMatcher, with its rule that a line occurring in more than 1% of a
// long b (200 lines or more) does not seed a match.
func unifiedDiff(a, b []string) string {
	m := newLineMatcher(a, b)
	var out strings.Builder
	for _, g := range m.groupedOpCodes(3) {
		first, last := g[0], g[len(g)-1]
		out.WriteString("@@ -" + unifiedRange(first.i1, last.i2) + " +" + unifiedRange(first.j1, last.j2) + " @@\n")
		for _, c := range g {
			if c.tag == 'e' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString(" " + l)
				}
				continue
			}
			if c.tag == 'r' || c.tag == 'd' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString("-" + l)
				}
			}
			if c.tag == 'r' || c.tag == 'i' {
				for _, l := range b[c.j1:c.j2] {
					out.WriteString("+" + l)
				}
			}
		}
	}
	return out.String()
}

func unifiedRange(start, stop int) string {
	begin, n := start+1, stop-start
	if n == 1 {
		return strconv.Itoa(begin)
	}
	if n == 0 {
		begin--
	}
	return strconv.Itoa(begin) + "," + strconv.Itoa(n)
}

// splitLines is go-difflib's SplitLines: lines with their newlines, the last one
// given one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	lines[len(lines)-1] += "\n"
	return lines
}

type lineMatch struct{ a, b, size int }

type opCode struct {
	tag            byte // 'r'eplace, 'd'elete, 'i'nsert, 'e'qual
	i1, i2, j1, j2 int
}

type lineMatcher struct {
	a, b []string
	b2j  map[string][]int // the indexes of each line of b that may seed a match
}

func newLineMatcher(a, b []string) *lineMatcher {
	m := &lineMatcher{a: a, b: b, b2j: map[string][]int{}}
	for j, s := range b {
		m.b2j[s] = append(m.b2j[s], j)
	}
	if n := len(b); n >= 200 {
		limit := n/100 + 1
		for s, js := range m.b2j {
			if len(js) > limit {
				delete(m.b2j, s)
			}
		}
	}
	return m
}

// longestMatch is the longest block of equal lines of a[alo:ahi] and b[blo:bhi],
// earliest in a then in b, extended over the popular lines next to it.
func (m *lineMatcher) longestMatch(alo, ahi, blo, bhi int) lineMatch {
	bi, bj, size := alo, blo, 0
	runs := map[int]int{}
	for i := alo; i < ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := runs[j-1] + 1
			next[j] = k
			if k > size {
				bi, bj, size = i-k+1, j-k+1, k
			}
		}
		runs = next
	}
	for bi > alo && bj > blo && m.a[bi-1] == m.b[bj-1] {
		bi, bj, size = bi-1, bj-1, size+1
	}
	for bi+size < ahi && bj+size < bhi && m.a[bi+size] == m.b[bj+size] {
		size++
	}
	return lineMatch{bi, bj, size}
}

func (m *lineMatcher) matchingBlocks() []lineMatch {
	var blocks []lineMatch
	var walk func(alo, ahi, blo, bhi int)
	walk = func(alo, ahi, blo, bhi int) {
		x := m.longestMatch(alo, ahi, blo, bhi)
		if x.size == 0 {
			return
		}
		if alo < x.a && blo < x.b {
			walk(alo, x.a, blo, x.b)
		}
		blocks = append(blocks, x)
		if x.a+x.size < ahi && x.b+x.size < bhi {
			walk(x.a+x.size, ahi, x.b+x.size, bhi)
		}
	}
	walk(0, len(m.a), 0, len(m.b))
	var merged []lineMatch
	cur := lineMatch{}
	for _, x := range blocks {
		if cur.a+cur.size == x.a && cur.b+cur.size == x.b {
			cur.size += x.size
			continue
		}
		if cur.size > 0 {
			merged = append(merged, cur)
		}
		cur = x
	}
	if cur.size > 0 {
		merged = append(merged, cur)
	}
	return append(merged, lineMatch{len(m.a), len(m.b), 0})
}

func (m *lineMatcher) opCodes() []opCode {
	var codes []opCode
	i, j := 0, 0
	for _, x := range m.matchingBlocks() {
		var tag byte
		switch {
		case i < x.a && j < x.b:
			tag = 'r'
		case i < x.a:
			tag = 'd'
		case j < x.b:
			tag = 'i'
		}
		if tag != 0 {
			codes = append(codes, opCode{tag, i, x.a, j, x.b})
		}
		i, j = x.a+x.size, x.b+x.size
		if x.size > 0 {
			codes = append(codes, opCode{'e', x.a, i, x.b, j})
		}
	}
	return codes
}

func (m *lineMatcher) groupedOpCodes(n int) [][]opCode {
	codes := m.opCodes()
	if len(codes) == 0 {
		codes = []opCode{{'e', 0, 1, 0, 1}}
	}
	if c := codes[0]; c.tag == 'e' {
		codes[0] = opCode{'e', max(c.i1, c.i2-n), c.i2, max(c.j1, c.j2-n), c.j2}
	}
	if c := codes[len(codes)-1]; c.tag == 'e' {
		codes[len(codes)-1] = opCode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)}
	}
	var groups [][]opCode
	var group []opCode
	for _, c := range codes {
		if c.tag == 'e' && c.i2-c.i1 > 2*n {
			group = append(group, opCode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, group)
			group = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

// podSpecDiff is the diff kube appends to its refusal of a pod update.
func podSpecDiff(old, next any) string {
	return unifiedDiff(splitLines(goJSONIndent(old)), splitLines(goJSONIndent(next)))
}
