package scheme

import (
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// DeepCopier is implemented by types that copy themselves; DeepCopy uses the method instead
// of reflection. Unstructured and UnstructuredList implement it.
type DeepCopier interface {
	DeepCopyObject() Kinded
}

// DeepCopy returns a copy of v that shares no mutable memory with it: pointers, slices,
// maps and interfaces are copied recursively. No code generator is needed: a copy plan
// is built by reflection once per type and cached. A value whose type implements
// DeepCopier is copied with its own method. Structs with unexported fields (time.Time,
// sync types) are copied as plain values; give such a type a DeepCopyObject method if it
// holds mutable state behind unexported pointers.
func DeepCopy[T any](v T) T {
	e := any(v)
	if e == nil {
		return v // a nil interface
	}
	if c, ok := e.(DeepCopier); ok && !isNilPointer(e) {
		if out, ok := c.DeepCopyObject().(T); ok {
			return out
		}
	}
	ef := (*eface)(unsafe.Pointer(&e))
	if p := pointerPlanFor(ef.typ, e); p != nil {
		// The common case, a pointer (possibly held in an interface such as Object): copy
		// into a new value without boxing v.
		if ef.data == nil {
			return v
		}
		out := unsafeNew(p.elemType)
		p.elem(out, ef.data)
		var r any
		*(*eface)(unsafe.Pointer(&r)) = eface{ef.typ, out}
		return r.(T)
	}
	return deepCopyValue(v)
}

// eface is the memory layout of an interface value: its dynamic type's word and its data
// word, which for a pointer type is the pointer itself.
type eface struct {
	typ, data unsafe.Pointer
}

// pointerPlan copies what a pointer type points to.
type pointerPlan struct {
	elemType unsafe.Pointer // the type word of the element type
	elem     copier
}

// pointerPlans caches the plans DeepCopy starts from by the type word of the value's
// interface: a plain map read is cheaper than a sync.Map. A nil plan is a non-pointer
// type. It is replaced, never changed, under buildMu.
var pointerPlans atomic.Pointer[map[unsafe.Pointer]*pointerPlan]

// pointerPlanFor returns the plan for e, whose type word is typ, or nil if e is not a
// pointer.
func pointerPlanFor(typ unsafe.Pointer, e any) *pointerPlan {
	if m := pointerPlans.Load(); m != nil {
		if p, ok := (*m)[typ]; ok {
			return p
		}
	}
	t := reflect.TypeOf(e)
	var p *pointerPlan
	if t.Kind() == reflect.Pointer {
		p = &pointerPlan{elemType: typeWord(t.Elem()), elem: copierFor(t.Elem())}
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	m := map[unsafe.Pointer]*pointerPlan{}
	if old := pointerPlans.Load(); old != nil {
		if p, ok := (*old)[typ]; ok {
			return p // built meanwhile by another goroutine
		}
		m = maps.Clone(*old)
	}
	m[typ] = p
	pointerPlans.Store(&m)
	return p
}

// deepCopyValue copies a non-pointer v. It is apart from DeepCopy because taking v's
// address moves it to the heap, which the pointer case must not pay for.
func deepCopyValue[T any](v T) T {
	var out T
	copierFor(reflect.TypeFor[T]())(unsafe.Pointer(&out), unsafe.Pointer(&v))
	return out
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// copier copies the value at src into dst. Both point to values of the copier's type;
// dst holds either the zero value or a shallow copy of src (a plain assignment), and a
// copier overwrites every word of it that must differ.
//
// Copiers work on raw pointers and field offsets rather than reflect.Values, the way
// generated deep-copy code does. Every store of a word the garbage collector sees as a
// pointer goes through an unsafe.Pointer or a typed assignment (so it has its write
// barrier); only words without pointers are moved as raw memory.
type copier func(dst, src unsafe.Pointer)

// plan is how values of one type are copied.
type plan struct {
	// copy copies a value into dst, zeroed or a shallow copy of src.
	copy copier
	// fix, given a shallow copy of src in dst, replaces the parts the two still share;
	// nil if a shallow copy is already deep.
	fix copier
}

var (
	plans   sync.Map // reflect.Type -> *plan, complete with every plan it reaches
	buildMu sync.Mutex
	// Under buildMu: plans being built (for recursive types), and plans built but not yet
	// published, because they may reach one still being built.
	building = map[reflect.Type]*plan{}
	built    = map[reflect.Type]*plan{}
)

func copierFor(t reflect.Type) copier {
	if p, ok := plans.Load(t); ok {
		return p.(*plan).copy
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	return planLocked(t).copier()
}

func planLocked(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := built[t]; ok {
		return p
	}
	if p, ok := building[t]; ok {
		return p // a recursive type: complete once its outermost build returns
	}
	p := &plan{}
	building[t] = p
	p.copy, p.fix = newPlan(t)
	delete(building, t)
	built[t] = p
	if len(building) == 0 {
		// The outermost build: every plan built is complete now, and so is all it reaches.
		for bt, bp := range built {
			plans.Store(bt, bp)
		}
		clear(built)
	}
	return p
}

// copier returns p's copy, deferring to it at run time while p is being built.
func (p *plan) copier() copier {
	if p.copy != nil {
		return p.copy
	}
	return func(dst, src unsafe.Pointer) { p.copy(dst, src) }
}

// fixer returns p's fix the same way. A type still being built is recursive, so it
// reaches itself through a pointer, slice or map: it is never plain and has a fix.
func (p *plan) fixer() copier {
	if p.copy != nil {
		return p.fix
	}
	return func(dst, src unsafe.Pointer) { p.fix(dst, src) }
}

var (
	timeType      = reflect.TypeOf(time.Time{})
	stringMapType = reflect.TypeOf(map[string]string(nil))
	deepCopierTyp = reflect.TypeOf((*DeepCopier)(nil)).Elem()
)

// isPlain reports whether a plain assignment is a deep copy: no pointers, slices, maps or
// interfaces reachable (strings are immutable; functions and channels are shared).
func isPlain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return false
	case reflect.Array:
		return isPlain(t.Elem())
	case reflect.Struct:
		if t == timeType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return true // copied as a value; see DeepCopy
			}
		}
		for i := 0; i < t.NumField(); i++ {
			if !isPlain(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// hasPointers reports whether values of t hold any word the garbage collector scans.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Slice, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

func newPlan(t reflect.Type) (copy, fix copier) {
	if isPlain(t) {
		return shallowCopier(t), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		c := pointerCopier(t)
		return c, c
	case reflect.Slice:
		c := sliceCopier(t)
		return c, c
	case reflect.Map:
		c := mapCopier(t)
		return c, c
	case reflect.Interface:
		c := interfaceCopier(t)
		return c, c
	case reflect.Array:
		elem := planLocked(t.Elem())
		ec, ef := elem.copier(), elem.fixer()
		size, n := t.Elem().Size(), uintptr(t.Len())
		return func(dst, src unsafe.Pointer) {
				for i := uintptr(0); i < n; i++ {
					ec(unsafe.Add(dst, i*size), unsafe.Add(src, i*size))
				}
			}, func(dst, src unsafe.Pointer) {
				for i := uintptr(0); i < n; i++ {
					ef(unsafe.Add(dst, i*size), unsafe.Add(src, i*size))
				}
			}
	case reflect.Struct:
		return structCopiers(t)
	}
	return shallowCopier(t), nil
}

const wordSize = unsafe.Sizeof(uintptr(0))

// Word classes of a layout: what a copy does with each word of a value.
const (
	wordRaw  byte = iota // no pointer: moved as memory
	wordPtr              // a pointer: stored through an unsafe.Pointer
	wordSkip             // left alone: a fix fills it
)

// A wordOp copies n consecutive runs of one shape from src to dst at off.
type wordOp struct {
	off, n uintptr
	kind   byte
}

// Shapes of wordOps.
const (
	opRaw     byte = iota // n words without pointers
	opPtrs                // n pointer words
	opStrings             // n pairs of a pointer word and a word without pointers (a string's shape)
)

// markShallow marks the pointer words of a t stored at off, for a copy by value.
func markShallow(t reflect.Type, off uintptr, words []byte) {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Slice:
		words[off/wordSize] = wordPtr // a slice's length and capacity stay raw
	case reflect.Interface:
		words[off/wordSize], words[off/wordSize+1] = wordPtr, wordPtr
	case reflect.Array:
		if hasPointers(t.Elem()) {
			for i, size := 0, t.Elem().Size(); i < t.Len(); i++ {
				markShallow(t.Elem(), off+uintptr(i)*size, words)
			}
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			markShallow(f.Type, off+f.Offset, words)
		}
	}
}

// wordOps turns a word classification into the operations that copy it.
func wordOps(words []byte) []wordOp {
	var out []wordOp
	for i := 0; i < len(words); {
		op := wordOp{off: uintptr(i) * wordSize}
		switch {
		case words[i] == wordSkip:
			i++
			continue
		case words[i] == wordPtr && i+1 < len(words) && words[i+1] == wordRaw:
			op.kind = opStrings
			for ; i+1 < len(words) && words[i] == wordPtr && words[i+1] == wordRaw; i += 2 {
				op.n++
			}
		case words[i] == wordPtr:
			op.kind = opPtrs
			for ; i < len(words) && words[i] == wordPtr; i++ {
				op.n++
			}
		default:
			op.kind = opRaw
			for ; i < len(words) && words[i] == wordRaw; i++ {
				op.n++
			}
		}
		out = append(out, op)
	}
	return out
}

// copyWords runs ops from src to dst.
func copyWords(ops []wordOp, dst, src unsafe.Pointer) {
	for i := range ops {
		op := &ops[i]
		d, s := unsafe.Add(dst, op.off), unsafe.Add(src, op.off)
		switch op.kind {
		case opStrings:
			for j := uintptr(0); j < op.n; j++ {
				*(*string)(unsafe.Add(d, 2*wordSize*j)) = *(*string)(unsafe.Add(s, 2*wordSize*j))
			}
		case opPtrs:
			for j := uintptr(0); j < op.n; j++ {
				*(*unsafe.Pointer)(unsafe.Add(d, wordSize*j)) = *(*unsafe.Pointer)(unsafe.Add(s, wordSize*j))
			}
		default:
			switch op.n {
			case 1:
				*(*uintptr)(d) = *(*uintptr)(s)
			case 2:
				*(*[2]uintptr)(d) = *(*[2]uintptr)(s)
			default:
				copy(unsafe.Slice((*byte)(d), op.n*wordSize), unsafe.Slice((*byte)(s), op.n*wordSize))
			}
		}
	}
}

// maxWordOps is the number of wordOps above which a shallow copy is one typed memory
// move (typedmemmove, about the cost of six wordOps) rather than word by word.
const maxWordOps = 6

// shallowCopier makes a plain assignment of a t.
func shallowCopier(t reflect.Type) copier {
	size := t.Size()
	switch {
	case size == 0:
		return func(dst, src unsafe.Pointer) {}
	case !hasPointers(t) && size == wordSize:
		return func(dst, src unsafe.Pointer) { *(*uintptr)(dst) = *(*uintptr)(src) }
	case !hasPointers(t):
		return func(dst, src unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(dst), size), unsafe.Slice((*byte)(src), size))
		}
	}
	words := make([]byte, size/wordSize) // a type with pointers is a whole number of words
	markShallow(t, 0, words)
	if ops := wordOps(words); len(ops) <= maxWordOps {
		return func(dst, src unsafe.Pointer) { copyWords(ops, dst, src) }
	}
	tw := typeWord(t)
	return func(dst, src unsafe.Pointer) { typedmemmove(tw, dst, src) }
}

// fieldFix is a field whose shallow copy needs fixing, at its offset in the outer struct.
type fieldFix struct {
	off uintptr
	fix copier
	// nilable: the field is a pointer, slice, map or interface, whose first word is nil
	// exactly when it is nil, and then the shallow copy is already right.
	nilable bool
}

// deepFields lists the fields of a struct that is not plain (so all its fields are
// exported) stored at off whose shallow copy needs a fix; nested structs are flattened
// into the outer list.
func deepFields(t reflect.Type, off uintptr, deep []fieldFix) []fieldFix {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case isPlain(f.Type):
		case f.Type.Kind() == reflect.Struct:
			deep = deepFields(f.Type, off+f.Offset, deep)
		default:
			k := f.Type.Kind()
			nilable := k == reflect.Pointer || k == reflect.Slice || k == reflect.Map || k == reflect.Interface
			deep = append(deep, fieldFix{off + f.Offset, planLocked(f.Type).fixer(), nilable})
		}
	}
	return deep
}

func structCopiers(t reflect.Type) (copy, fix copier) {
	deep := deepFields(t, 0, nil)
	shallow := shallowCopier(t)
	fix = func(dst, src unsafe.Pointer) {
		for i := range deep {
			f := &deep[i]
			s := unsafe.Add(src, f.off)
			if f.nilable && *(*unsafe.Pointer)(s) == nil {
				continue
			}
			f.fix(unsafe.Add(dst, f.off), s)
		}
	}
	copy = func(dst, src unsafe.Pointer) {
		shallow(dst, src)
		fix(dst, src)
	}
	return copy, fix
}

func pointerCopier(t reflect.Type) copier {
	et := t.Elem()
	if t.Implements(deepCopierTyp) {
		return func(dst, src unsafe.Pointer) {
			s := reflect.NewAt(t, src).Elem()
			if s.IsNil() {
				return
			}
			reflect.NewAt(t, dst).Elem().Set(reflect.ValueOf(s.Interface().(DeepCopier).DeepCopyObject()))
		}
	}
	if size := et.Size(); size > 0 && !hasPointers(et) {
		// *int32, *bool, *Quantity-like values: the new value holds no pointers, so
		// its memory may be allocated untyped, without reflect.New's type look-up.
		return func(dst, src unsafe.Pointer) {
			s := *(*unsafe.Pointer)(src)
			if s == nil {
				return
			}
			b := make([]byte, size)
			copy(b, unsafe.Slice((*byte)(s), size))
			*(*unsafe.Pointer)(dst) = unsafe.Pointer(&b[0])
		}
	}
	elem := planLocked(et).copier()
	etw := typeWord(et)
	return func(dst, src unsafe.Pointer) {
		s := *(*unsafe.Pointer)(src)
		if s == nil {
			return
		}
		p := unsafeNew(etw)
		elem(p, s)
		*(*unsafe.Pointer)(dst) = p
	}
}

// sliceHeader is the memory layout of every slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// typeWord returns the type word of interfaces holding a t.
func typeWord(t reflect.Type) unsafe.Pointer {
	// A reflect.Type holds the runtime's type descriptor (*rtype) as its data word. The
	// type word of a zero value boxed in an interface would not do: for an interface
	// type t the box is nil.
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]
}

// emptyBacking is where copies of empty, non-nil slices point: not nil, and no element
// can be written through a zero capacity.
var emptyBacking [1]uintptr

func sliceCopier(t reflect.Type) copier {
	et := t.Elem()
	size := et.Size()
	switch {
	case !hasPointers(et):
		// The backing array holds no pointers, so its memory may be allocated untyped.
		return func(dst, src unsafe.Pointer) {
			s, d := (*sliceHeader)(src), (*sliceHeader)(dst)
			if s.data == nil {
				return
			}
			n := uintptr(s.len) * size
			if n == 0 { // empty, or elements of size zero
				*d = sliceHeader{unsafe.Pointer(&emptyBacking), s.len, s.len}
				return
			}
			b := make([]byte, n)
			copy(b, unsafe.Slice((*byte)(s.data), n))
			*d = sliceHeader{unsafe.Pointer(&b[0]), s.len, s.len}
		}
	case et.Kind() == reflect.String:
		return func(dst, src unsafe.Pointer) {
			s := *(*[]string)(src)
			if s == nil {
				return
			}
			if len(s) == 0 {
				*(*sliceHeader)(dst) = sliceHeader{data: unsafe.Pointer(&emptyBacking)}
				return
			}
			out := make([]string, len(s))
			copy(out, s)
			*(*[]string)(dst) = out
		}
	}
	fix := planLocked(et).fixer() // nil: the elements are plain
	etw := typeWord(et)
	return func(dst, src unsafe.Pointer) {
		s, d := (*sliceHeader)(src), (*sliceHeader)(dst)
		if s.data == nil {
			return
		}
		if s.len == 0 {
			*d = sliceHeader{data: unsafe.Pointer(&emptyBacking)}
			return
		}
		// A typed array, the elements moved in bulk (with the write barriers the
		// collector needs), then fix makes them deep.
		out := sliceHeader{unsafeNewArray(etw, s.len), s.len, s.len}
		typedslicecopy(etw, out, *s)
		*d = out
		if fix != nil {
			for i := uintptr(0); i < uintptr(s.len); i++ {
				fix(unsafe.Add(d.data, i*size), unsafe.Add(s.data, i*size))
			}
		}
	}
}

func mapCopier(t reflect.Type) copier {
	if t == stringMapType {
		return func(dst, src unsafe.Pointer) {
			in := *(*map[string]string)(src)
			if in == nil {
				return
			}
			// Clone copies the hash table as memory: no key is hashed again.
			*(*map[string]string)(dst) = maps.Clone(in)
		}
	}
	kt, vt := t.Key(), t.Elem()
	var kc, vc copier // nil: plain, the map's own copy is enough
	if !isPlain(kt) {
		kc = planLocked(kt).copier()
	}
	if !isPlain(vt) {
		vc = planLocked(vt).copier()
	}
	return func(dst, src unsafe.Pointer) {
		sv := reflect.NewAt(t, src).Elem()
		if sv.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(t, sv.Len())
		it := sv.MapRange()
		for it.Next() {
			k, v := it.Key(), it.Value()
			if kc != nil {
				k = copyValue(kt, kc, k)
			}
			if vc != nil {
				v = copyValue(vt, vc, v)
			}
			m.SetMapIndex(k, v)
		}
		reflect.NewAt(t, dst).Elem().Set(m)
	}
}

// copyValue copies v, of type t, with c into a new value.
func copyValue(t reflect.Type, c copier, v reflect.Value) reflect.Value {
	src := reflect.New(t)
	src.Elem().Set(v)
	dst := reflect.New(t)
	c(dst.UnsafePointer(), src.UnsafePointer())
	return dst.Elem()
}

func interfaceCopier(t reflect.Type) copier {
	return func(dst, src unsafe.Pointer) {
		sv := reflect.NewAt(t, src).Elem()
		if sv.IsNil() {
			return
		}
		dv := reflect.NewAt(t, dst).Elem()
		v := sv.Interface()
		if c, ok := v.(DeepCopier); ok && !isNilPointer(v) {
			dv.Set(reflect.ValueOf(c.DeepCopyObject()))
			return
		}
		switch v.(type) {
		case map[string]any, []any:
			dv.Set(reflect.ValueOf(DeepCopyJSONValue(v)))
			return
		}
		e := sv.Elem()
		et := e.Type()
		if et.Kind() == reflect.Pointer {
			if e.IsNil() {
				dv.Set(e)
				return
			}
			p := reflect.New(et.Elem())
			copierFor(et.Elem())(p.UnsafePointer(), e.UnsafePointer())
			dv.Set(p)
			return
		}
		dv.Set(copyValue(et, copierFor(et), e))
	}
}

// DeepCopyJSONValue copies a JSON-shaped value (map[string]any, []any, string, bool,
// int64, float64, nil and the other scalars unstructured objects may hold).
func DeepCopyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = DeepCopyJSONValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = DeepCopyJSONValue(e)
		}
		return s
	case nil, string, bool, int64, float64, int, int32, float32:
		return x
	default:
		return DeepCopy(v)
	}
}

// DeepCopyObject copies the object's map.
func (u *Unstructured) DeepCopyObject() Kinded {
	if u == nil {
		return (*Unstructured)(nil)
	}
	return u.DeepCopy()
}

// DeepCopy copies the object's map.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{}
	if u.Object != nil {
		out.Object = DeepCopyJSONValue(u.Object).(map[string]any)
	}
	return out
}

// DeepCopyObject copies the list and its items.
func (l *UnstructuredList) DeepCopyObject() Kinded {
	if l == nil {
		return (*UnstructuredList)(nil)
	}
	out := &UnstructuredList{}
	if l.Object != nil {
		out.Object = DeepCopyJSONValue(l.Object).(map[string]any)
	}
	if l.Items != nil {
		out.Items = make([]Unstructured, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopy()
		}
	}
	return out
}
