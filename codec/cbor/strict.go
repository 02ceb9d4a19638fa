package cbor

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// maxIssues bounds how many field issues one decode collects, like the JSON decoder.
const maxIssues = 100

// shapeKind is how the strictness walk treats a value of a Go type.
type shapeKind uint8

const (
	shapeOpaque shapeKind = iota // decoded by a method or a scalar: not looked into
	shapeAny                     // untyped: maps are checked for duplicate keys
	shapeStruct
	shapeMap
	shapeSlice
)

// shape is what the strictness walk knows of a Go type: its fields by wire name, or
// the shape of its elements.
type shape struct {
	kind   shapeKind
	fields map[string]*shape
	elem   *shape
}

var (
	shapeCache   sync.Map // reflect.Type -> *shape
	shapeMu      sync.Mutex
	anyShape     = &shape{kind: shapeAny}
	opaqueShape  = &shape{kind: shapeOpaque}
	cborUnmarsh  = reflect.TypeFor[fx.Unmarshaler]()
	jsonUnmarsh  = reflect.TypeFor[json.Unmarshaler]()
	unstructType = reflect.TypeFor[scheme.Unstructured]()
	ulistType    = reflect.TypeFor[scheme.UnstructuredList]()
)

// shapeOf returns the cached shape of t, building it (and those of the types it
// refers to) once.
func shapeOf(t reflect.Type) *shape {
	if sh, ok := shapeCache.Load(t); ok {
		return sh.(*shape)
	}
	shapeMu.Lock()
	defer shapeMu.Unlock()
	building := map[reflect.Type]*shape{}
	sh := buildShape(t, building)
	for bt, bs := range building {
		shapeCache.LoadOrStore(bt, bs)
	}
	return sh
}

func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := shapeCache.Load(t); ok {
		return sh.(*shape)
	}
	if sh, ok := building[t]; ok {
		return sh
	}
	switch {
	case t == unstructType, t == ulistType:
		return anyShape
	case reflect.PointerTo(t).Implements(cborUnmarsh), reflect.PointerTo(t).Implements(jsonUnmarsh):
		return opaqueShape
	}
	switch t.Kind() {
	case reflect.Interface:
		return anyShape
	case reflect.Struct:
		sh := &shape{kind: shapeStruct}
		building[t] = sh
		fields := map[string]*shape{}
		for name, ft := range wireFields(t) {
			fields[name] = buildShape(ft, building)
		}
		sh.fields = fields
		return sh
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return opaqueShape
		}
		sh := &shape{kind: shapeMap}
		building[t] = sh
		sh.elem = buildShape(t.Elem(), building)
		return sh
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return opaqueShape
		}
		sh := &shape{kind: shapeSlice}
		building[t] = sh
		sh.elem = buildShape(t.Elem(), building)
		return sh
	}
	return opaqueShape
}

// wireFields returns the fields of a struct by their wire names, resolved with
// encoding/json's rules as fxamacker applies them: the cbor tag, else the json tag,
// names the field; "-" drops it; untagged embedded structs are flattened; among
// fields of one name the shallowest wins, a tagged one breaking a tie at that depth,
// and an unbroken tie drops the name.
func wireFields(t reflect.Type) map[string]reflect.Type {
	type candidate struct {
		typ    reflect.Type
		depth  int
		tagged bool
		count  int
	}
	best := map[string]*candidate{}
	type level struct {
		t     reflect.Type
		depth int
	}
	queue := []level{{t, 0}}
	visited := map[reflect.Type]bool{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if visited[cur.t] {
			continue
		}
		visited[cur.t] = true
		for i := 0; i < cur.t.NumField(); i++ {
			f := cur.t.Field(i)
			ft := f.Type
			if f.Anonymous {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !f.IsExported() && ft.Kind() != reflect.Struct {
					continue
				}
			} else if !f.IsExported() {
				continue
			}
			tag, ok := f.Tag.Lookup("cbor")
			if !ok {
				tag = f.Tag.Get("json")
			}
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				queue = append(queue, level{ft, cur.depth + 1})
				continue
			}
			tagged := name != ""
			if name == "" {
				name = f.Name
			}
			c := best[name]
			switch {
			case c == nil || cur.depth < c.depth:
				best[name] = &candidate{typ: f.Type, depth: cur.depth, tagged: tagged, count: 1}
			case cur.depth == c.depth && tagged && !c.tagged:
				*c = candidate{typ: f.Type, depth: cur.depth, tagged: true, count: 1}
			case cur.depth == c.depth && tagged == c.tagged:
				c.count++
			}
		}
	}
	out := make(map[string]reflect.Type, len(best))
	for name, c := range best {
		if c.count == 1 {
			out[name] = c.typ
		}
	}
	return out
}

// pathElem is one step of a path: a key, or an index when index >= 0.
type pathElem struct {
	key   string
	index int
}

// walker finds the unknown and duplicate fields of a CBOR document against a Go type,
// with their paths in the JSON decoder's form ("spec.parts[2].nmae"). It runs on
// input that has already decoded, so it is well formed and within the limits.
type walker struct {
	s      scanner
	path   []pathElem
	issues codec.FieldIssues
	seen   map[codec.FieldIssue]struct{}
	buf    []byte
}

// fieldIssues walks data (one data item) as a value of type t.
func fieldIssues(data []byte, t reflect.Type) (codec.FieldIssues, error) {
	w := walker{s: scanner{data: data}}
	w.s.skipSelfDescribed() // client-go prefixes every body with the tag
	err := w.value(shapeOf(t))
	return w.issues, err
}

func (w *walker) issue(t codec.IssueType, field string) {
	if len(w.issues) >= maxIssues {
		return
	}
	p := field
	if n := len(w.path); n > 0 {
		var b strings.Builder
		for i, e := range w.path {
			if e.index >= 0 {
				b.WriteByte('[')
				b.WriteString(strconv.Itoa(e.index))
				b.WriteByte(']')
				continue
			}
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.key)
		}
		b.WriteByte('.')
		b.WriteString(field)
		p = b.String()
	}
	x := codec.FieldIssue{Type: t, Path: p}
	if w.seen == nil {
		w.seen = map[codec.FieldIssue]struct{}{}
	}
	if _, ok := w.seen[x]; ok {
		return
	}
	w.seen[x] = struct{}{}
	w.issues = append(w.issues, x)
}

// value walks one data item as sh describes it.
func (w *walker) value(sh *shape) error {
	for w.s.pos < len(w.s.data) && w.s.data[w.s.pos]>>5 == majorTag {
		if _, _, _, err := w.s.head(); err != nil {
			return err
		}
		if sh.kind != shapeAny {
			sh = opaqueShape // a tagged value is not a struct, map or array decode
		}
	}
	switch sh.kind {
	case shapeStruct, shapeMap, shapeAny:
		count, ok, err := w.s.container(majorMap)
		if err != nil {
			return err
		}
		if ok {
			return w.mapEntries(sh, count)
		}
		if sh.kind == shapeAny {
			count, ok, err := w.s.container(majorArray)
			if err != nil {
				return err
			}
			if ok {
				return w.arrayItems(anyShape, count)
			}
		}
	case shapeSlice:
		count, ok, err := w.s.container(majorArray)
		if err != nil {
			return err
		}
		if ok {
			return w.arrayItems(sh.elem, count)
		}
	}
	return w.s.skip()
}

func (w *walker) arrayItems(elem *shape, count int) error {
	for i := 0; w.s.more(count, i); i++ {
		w.path = append(w.path, pathElem{index: i})
		err := w.value(elem)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) mapEntries(sh *shape, count int) error {
	var keys map[string]struct{}
	for i := 0; w.s.more(count, i); i++ {
		kb, err := w.s.str(w.buf)
		if err == errNotString {
			// Not a name: fxamacker matches no field with it; skip the pair.
			if err := w.s.skip(); err != nil {
				return err
			}
			if err := w.s.skip(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		key := string(kb)
		if keys == nil {
			keys = map[string]struct{}{}
		}
		_, dup := keys[key]
		keys[key] = struct{}{}
		var elem *shape
		switch sh.kind {
		case shapeStruct:
			elem = sh.fields[key]
			if elem == nil {
				w.issue(codec.UnknownField, key)
				if err := w.s.skip(); err != nil {
					return err
				}
				continue
			}
			if dup {
				// The first value of a repeated field is the one kept.
				w.issue(codec.DuplicateField, key)
				if err := w.s.skip(); err != nil {
					return err
				}
				continue
			}
		case shapeMap:
			elem = sh.elem
		default:
			elem = anyShape
		}
		if dup {
			w.issue(codec.DuplicateField, key)
		}
		w.path = append(w.path, pathElem{key: key, index: -1})
		err = w.value(elem)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}
