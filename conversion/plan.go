package conversion

import (
	"fmt"
	"maps"
	"reflect"

	"github.com/apikit-dev/apikit/scheme"
)

var (
	typeMetaType  = reflect.TypeFor[scheme.TypeMeta]()
	stringMapType = reflect.TypeFor[map[string]string]()
	anyMapType    = reflect.TypeFor[map[string]any]()
	anySliceType  = reflect.TypeFor[[]any]()
)

// plan returns the compiled converter for the pair in the given mode, building and caching
// it on first use.
func (r *registry) plan(in, out reflect.Type, m mode) *converter {
	key := planKey{typePair{in, out}, m}
	if c, ok := r.plans.Load(key); ok {
		return c.(*converter)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.planLocked(in, out, m)
}

func (r *registry) planLocked(in, out reflect.Type, m mode) *converter {
	key := planKey{typePair{in, out}, m}
	if c, ok := r.plans.Load(key); ok {
		return c.(*converter)
	}
	if c, ok := r.building[key]; ok {
		return c // a recursive type: callers go through c.fn once it is set
	}
	c := &converter{}
	r.building[key] = c
	fn, problems := r.compile(in, out, m)
	if fn == nil {
		if len(problems) == 0 {
			problems = []problem{{msg: fmt.Sprintf("cannot convert %v to %v", in, out)}}
		}
		err := &PlanError{In: in, Out: out, Fields: problemStrings(problems)}
		fn = func(reflect.Value, reflect.Value) error { return err }
	}
	c.fn, c.problems = fn, problems
	delete(r.building, key)
	r.plans.Store(key, c)
	return c
}

// nested returns the converter for a pair nested in a plan of mode m.
func (r *registry) nested(in, out reflect.Type, m mode) *converter {
	if m == autoTop {
		m = lenient
	}
	return r.planLocked(in, out, m)
}

// call returns a function that runs c, read through the pointer so that recursive plans work.
func call(c *converter) convFunc {
	if c.fn != nil {
		return c.fn
	}
	return func(in, out reflect.Value) error { return c.fn(in, out) }
}

// compile builds the conversion of in to out. A nil function means the pair does not
// convert at all; problems list fields that a strict plan must refuse.
func (r *registry) compile(in, out reflect.Type, m mode) (convFunc, []problem) {
	if m != autoTop {
		if f, ok := r.funcs[typePair{in, out}]; ok {
			return f, nil
		}
	}
	if in == out && isPlain(in) {
		return assign, nil
	}
	if r.sameLayout(in, out, true) {
		// Plain values laid out alike (same field names, types and offsets): copy the memory.
		slow, _ := r.compileKind(in, out, m)
		return func(i, o reflect.Value) error {
			if !i.CanAddr() {
				return slow(i, o)
			}
			o.Set(reflect.NewAt(out, i.Addr().UnsafePointer()).Elem())
			return nil
		}, nil
	}
	return r.compileKind(in, out, m)
}

func (r *registry) compileKind(in, out reflect.Type, m mode) (convFunc, []problem) {
	ik, ok := in.Kind(), out.Kind()
	if ik != ok {
		return nil, []problem{{msg: fmt.Sprintf("cannot convert %v to %v", in, out)}}
	}
	switch ik {
	case reflect.Bool:
		return func(i, o reflect.Value) error { o.SetBool(i.Bool()); return nil }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(i, o reflect.Value) error { o.SetInt(i.Int()); return nil }, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(i, o reflect.Value) error { o.SetUint(i.Uint()); return nil }, nil
	case reflect.Float32, reflect.Float64:
		return func(i, o reflect.Value) error { o.SetFloat(i.Float()); return nil }, nil
	case reflect.Complex64, reflect.Complex128:
		return func(i, o reflect.Value) error { o.SetComplex(i.Complex()); return nil }, nil
	case reflect.String:
		return func(i, o reflect.Value) error { o.SetString(i.String()); return nil }, nil
	case reflect.Pointer:
		return r.compilePointer(in, out, m)
	case reflect.Slice:
		return r.compileSlice(in, out, m)
	case reflect.Array:
		if in.Len() != out.Len() {
			return nil, []problem{{msg: fmt.Sprintf("cannot convert %v to %v: lengths differ", in, out)}}
		}
		elem := r.nested(in.Elem(), out.Elem(), m)
		probs := prefix("[]", elem.problems)
		f := call(elem)
		return func(i, o reflect.Value) error {
			for n := 0; n < i.Len(); n++ {
				if err := f(i.Index(n), o.Index(n)); err != nil {
					return wrapPath(fmt.Sprintf("[%d]", n), err)
				}
			}
			return nil
		}, probs
	case reflect.Map:
		return r.compileMap(in, out, m)
	case reflect.Interface:
		if in != out {
			return nil, []problem{{msg: fmt.Sprintf("cannot convert %v to %v", in, out)}}
		}
		return r.copyInterface, nil
	case reflect.Struct:
		return r.compileStruct(in, out, m)
	}
	if in == out { // functions, channels, unsafe pointers: shared
		return assign, nil
	}
	return nil, []problem{{msg: fmt.Sprintf("cannot convert %v to %v", in, out)}}
}

func assign(in, out reflect.Value) error {
	out.Set(in)
	return nil
}

// sameLayout reports whether in and out are plain (see isPlain), have the same memory
// layout, and would convert field by field with no registered function and no TypeMeta
// to skip: then a conversion is a copy of the memory.
func (r *registry) sameLayout(in, out reflect.Type, top bool) bool {
	if in == out {
		return isPlain(in)
	}
	if in.Kind() != out.Kind() || in.Size() != out.Size() || !isPlain(in) || !isPlain(out) {
		return false
	}
	if !top {
		if _, ok := r.funcs[typePair{in, out}]; ok {
			return false
		}
	}
	switch in.Kind() {
	case reflect.Array:
		return in.Len() == out.Len() && r.sameLayout(in.Elem(), out.Elem(), false)
	case reflect.Struct:
		if in.NumField() != out.NumField() {
			return false
		}
		for k := 0; k < in.NumField(); k++ {
			a, b := in.Field(k), out.Field(k)
			if a.Name != b.Name || !a.IsExported() || !b.IsExported() || a.Offset != b.Offset ||
				a.Type == typeMetaType || !r.sameLayout(a.Type, b.Type, false) {
				return false
			}
		}
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	}
	return false
}

// isPlain reports whether assignment is a deep copy: no pointers, slices, maps or
// interfaces reachable (strings are immutable). Structs with unexported fields are copied
// as values, like scheme.DeepCopy does.
func isPlain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	case reflect.Array:
		return isPlain(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				return true
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

func (r *registry) compilePointer(in, out reflect.Type, m mode) (convFunc, []problem) {
	et := out.Elem()
	elem := r.nested(in.Elem(), et, m)
	f := call(elem)
	return func(i, o reflect.Value) error {
		if i.IsNil() {
			o.SetZero()
			return nil
		}
		p := reflect.New(et)
		if err := f(i.Elem(), p.Elem()); err != nil {
			return err
		}
		o.Set(p)
		return nil
	}, elem.problems
}

func (r *registry) compileSlice(in, out reflect.Type, m mode) (convFunc, []problem) {
	if in != out && r.sameLayout(in.Elem(), out.Elem(), true) {
		slow, probs := r.compileSliceElems(in, out, m)
		return func(i, o reflect.Value) error {
			if !i.CanAddr() {
				return slow(i, o)
			}
			if i.IsNil() {
				o.SetZero()
				return nil
			}
			n := reflect.MakeSlice(out, i.Len(), i.Len())
			reflect.Copy(n, reflect.NewAt(out, i.Addr().UnsafePointer()).Elem())
			o.Set(n)
			return nil
		}, probs
	}
	return r.compileSliceElems(in, out, m)
}

func (r *registry) compileSliceElems(in, out reflect.Type, m mode) (convFunc, []problem) {
	if in == out && isPlain(in.Elem()) {
		return func(i, o reflect.Value) error {
			if i.IsNil() {
				o.SetZero()
				return nil
			}
			n := reflect.MakeSlice(out, i.Len(), i.Len())
			reflect.Copy(n, i)
			o.Set(n)
			return nil
		}, nil
	}
	elem := r.nested(in.Elem(), out.Elem(), m)
	f := call(elem)
	return func(i, o reflect.Value) error {
		if i.IsNil() {
			o.SetZero()
			return nil
		}
		l := i.Len()
		n := reflect.MakeSlice(out, l, l)
		for k := 0; k < l; k++ {
			if err := f(i.Index(k), n.Index(k)); err != nil {
				return wrapPath(fmt.Sprintf("[%d]", k), err)
			}
		}
		o.Set(n)
		return nil
	}, prefix("[]", elem.problems)
}

func (r *registry) compileMap(in, out reflect.Type, m mode) (convFunc, []problem) {
	if in == stringMapType && out == stringMapType {
		return func(i, o reflect.Value) error {
			if i.IsNil() {
				o.SetZero()
				return nil
			}
			o.Set(reflect.ValueOf(maps.Clone(i.Interface().(map[string]string))))
			return nil
		}, nil
	}
	if in == anyMapType && out == anyMapType {
		return func(i, o reflect.Value) error {
			if i.IsNil() {
				o.SetZero()
				return nil
			}
			o.Set(reflect.ValueOf(scheme.DeepCopyJSONValue(i.Interface())))
			return nil
		}, nil
	}
	keyC := r.nested(in.Key(), out.Key(), m)
	valC := r.nested(in.Elem(), out.Elem(), m)
	probs := append(prefix("[key]", keyC.problems), prefix("[]", valC.problems)...)
	kf, vf := call(keyC), call(valC)
	ikt, ivt, okt, ovt := in.Key(), in.Elem(), out.Key(), out.Elem()
	return func(i, o reflect.Value) error {
		if i.IsNil() {
			o.SetZero()
			return nil
		}
		n := reflect.MakeMapWithSize(out, i.Len())
		ik, iv := reflect.New(ikt).Elem(), reflect.New(ivt).Elem()
		ok, ov := reflect.New(okt).Elem(), reflect.New(ovt).Elem()
		it := i.MapRange()
		for it.Next() {
			ik.SetIterKey(it)
			iv.SetIterValue(it)
			ok.SetZero()
			ov.SetZero()
			if err := kf(ik, ok); err != nil {
				return wrapPath(fmt.Sprintf("[%v]", ik), err)
			}
			if err := vf(iv, ov); err != nil {
				return wrapPath(fmt.Sprintf("[%v]", ik), err)
			}
			n.SetMapIndex(ok, ov)
		}
		o.Set(n)
		return nil
	}, probs
}

// copyInterface deep-copies the dynamic value of an interface.
func (r *registry) copyInterface(i, o reflect.Value) error {
	if i.IsNil() {
		o.SetZero()
		return nil
	}
	switch v := i.Interface().(type) {
	case string, bool, int64, float64, int, int32:
		o.Set(i)
		return nil
	case map[string]any, []any:
		o.Set(reflect.ValueOf(scheme.DeepCopyJSONValue(v)))
		return nil
	}
	e := i.Elem()
	c := r.plan(e.Type(), e.Type(), strict)
	if c.fn == nil || len(c.problems) > 0 {
		return &PlanError{In: e.Type(), Out: e.Type(), Fields: problemStrings(c.problems)}
	}
	n := reflect.New(e.Type()).Elem()
	if err := c.fn(e, n); err != nil {
		return err
	}
	o.Set(n)
	return nil
}

type fieldOp struct {
	in, out int
	name    string
	plain   bool // same type and plain: assign directly
	fn      convFunc
}

func (r *registry) compileStruct(in, out reflect.Type, m mode) (convFunc, []problem) {
	same := in == out
	var ops []fieldOp
	var problems []problem
	for k := 0; k < out.NumField(); k++ {
		of := out.Field(k)
		if !of.IsExported() {
			problems = append(problems, problem{of.Name, fmt.Sprintf("unexported field of %v cannot be set", out)})
			continue
		}
		inf, found := directField(in, of.Name)
		if !found {
			problems = append(problems, problem{of.Name, fmt.Sprintf("field of %v has no counterpart in %v", out, in)})
			continue
		}
		if !same && of.Type == typeMetaType && inf.Type == typeMetaType {
			continue // apiVersion and kind belong to the version; callers set them
		}
		if inf.Type == of.Type && isPlain(of.Type) {
			if !same { // a same-type struct is assigned whole first
				ops = append(ops, fieldOp{in: inf.Index[0], out: k, name: of.Name, plain: true})
			}
			continue
		}
		op := fieldOp{in: inf.Index[0], out: k, name: of.Name}
		c := r.nested(inf.Type, of.Type, m)
		if c.fn != nil { // nil while a recursive pair is still being built
			problems = append(problems, prefix(of.Name, c.problems)...)
			if m != strict && c.problems != nil && !canPartly(inf.Type, of.Type) {
				continue // lenient: left for the registered function to fill in
			}
		}
		op.fn = call(c)
		ops = append(ops, op)
	}
	for k := 0; k < in.NumField(); k++ {
		f := in.Field(k)
		if !f.IsExported() {
			problems = append(problems, problem{f.Name, fmt.Sprintf("unexported field of %v cannot be read", in)})
			continue
		}
		if _, found := directField(out, f.Name); !found {
			problems = append(problems, problem{f.Name, fmt.Sprintf("field of %v has no counterpart in %v", in, out)})
		}
	}
	return func(i, o reflect.Value) error {
		if same {
			o.Set(i)
		}
		for _, op := range ops {
			if op.plain {
				o.Field(op.out).Set(i.Field(op.in))
				continue
			}
			if err := op.fn(i.Field(op.in), o.Field(op.out)); err != nil {
				return wrapPath(op.name, err)
			}
		}
		return nil
	}, problems
}

// canPartly reports whether a lenient plan for the pair converts part of the value (and
// skips the rest), rather than nothing: containers and structs of the same shape.
func canPartly(in, out reflect.Type) bool {
	if in.Kind() != out.Kind() {
		return false
	}
	switch in.Kind() {
	case reflect.Struct:
		return true
	case reflect.Pointer, reflect.Slice:
		return canPartly(in.Elem(), out.Elem())
	case reflect.Array:
		return in.Len() == out.Len() && canPartly(in.Elem(), out.Elem())
	case reflect.Map:
		return in.Key() == out.Key() && canPartly(in.Elem(), out.Elem())
	}
	return false
}

// problem is one field an automatic plan cannot convert: its path and why.
type problem struct {
	path, msg string
}

func (p problem) String() string {
	if p.path == "" {
		return p.msg
	}
	return p.path + ": " + p.msg
}

func joinPath(seg, path string) string {
	switch {
	case path == "":
		return seg
	case path[0] == '[':
		return seg + path
	}
	return seg + "." + path
}

func prefix(seg string, problems []problem) []problem {
	if len(problems) == 0 {
		return nil
	}
	out := make([]problem, len(problems))
	for i, p := range problems {
		out[i] = problem{path: joinPath(seg, p.path), msg: p.msg}
	}
	return out
}

func problemStrings(ps []problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func directField(t reflect.Type, name string) (reflect.StructField, bool) {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 || !f.IsExported() {
		return reflect.StructField{}, false
	}
	return f, true
}

// pathError carries the field path at which a conversion failed.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

func wrapPath(seg string, err error) error {
	if pe, ok := err.(*pathError); ok {
		pe.path = joinPath(seg, pe.path)
		return pe
	}
	return &pathError{path: seg, err: err}
}
