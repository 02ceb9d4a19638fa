package conversion

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"

	"github.com/apikit-dev/apikit/scheme"
)

// Scope is handed to registered conversion functions so that they convert nested values
// with the same machinery: Convert uses the function registered for the pair of types if
// there is one, and the automatic field-by-field conversion otherwise.
type Scope interface {
	// Convert converts *in into *out; both must be non-nil pointers.
	Convert(in, out any) error
	// AutoConvert is the package function AutoConvert on the scope's scheme: the automatic
	// conversion a registered function runs first before fixing up what differs.
	AutoConvert(in, out any) error
}

// convFunc converts in into out. out is settable; in is addressable whenever it can be.
type convFunc func(in, out reflect.Value) error

// converter is a compiled plan for one pair of types. It is referenced by pointer so that
// plans of recursive types can call a plan still being built.
type converter struct {
	fn convFunc
	// problems name the fields the automatic plan could not convert (missing on one side,
	// or of types that do not convert automatically). A strict plan with problems fails.
	problems []problem
}

// mode selects how a plan treats the pair's registered function and unconvertible fields.
type mode uint8

const (
	// strict uses registered functions and fails on any field it cannot convert.
	strict mode = iota
	// lenient uses registered functions and skips fields it cannot convert.
	lenient
	// autoTop is lenient and ignores the function registered for the top-level pair
	// itself: what AutoConvert runs.
	autoTop
)

type typePair struct{ in, out reflect.Type }

type planKey struct {
	typePair
	mode mode
}

// registry is the per-scheme state of this package, kept with scheme.Extension.
type registry struct {
	mu    sync.Mutex
	funcs map[typePair]convFunc
	// acrossGroups are the pairs ToVersion may convert though their kinds' groups differ.
	acrossGroups map[typePair]bool
	defaulters   map[reflect.Type]func(reflect.Value)

	plans    sync.Map // planKey -> *converter
	building map[planKey]*converter

	defaultPlans    sync.Map // reflect.Type -> defaultFunc (nil when nothing to default)
	defaultBuilding map[reflect.Type]*defaultFunc
}

type registryKey struct{}

func registryOf(s *scheme.Scheme) *registry {
	return s.Extension(registryKey{}, func() any {
		return &registry{
			funcs:           map[typePair]convFunc{},
			acrossGroups:    map[typePair]bool{},
			defaulters:      map[reflect.Type]func(reflect.Value){},
			building:        map[planKey]*converter{},
			defaultBuilding: map[reflect.Type]*defaultFunc{},
		}
	}).(*registry)
}

// CloneExtension copies the registered conversion and defaulting functions for a
// cloned scheme (scheme.Scheme.Clone); its compiled plans are built again.
func (r *registry) CloneExtension() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &registry{
		funcs:           make(map[typePair]convFunc, len(r.funcs)),
		acrossGroups:    maps.Clone(r.acrossGroups),
		defaulters:      make(map[reflect.Type]func(reflect.Value), len(r.defaulters)),
		building:        map[planKey]*converter{},
		defaultBuilding: map[reflect.Type]*defaultFunc{},
	}
	maps.Copy(c.funcs, r.funcs)
	maps.Copy(c.defaulters, r.defaulters)
	return c
}

// Register adds a conversion function for the pair (In, Out) to the scheme. It replaces the
// automatic conversion of that pair wherever the pair occurs: at the top level and nested
// at any depth. Inside fn, call sc.AutoConvert(in, out) first to convert every field the two
// types share, then fix up what differs, and sc.Convert for nested values. Registering a
// pair again replaces the earlier function. Register everything before converting.
func Register[In, Out any](s *scheme.Scheme, fn func(in *In, out *Out, sc Scope) error) {
	r := registryOf(s)
	inT, outT := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	f := func(in, out reflect.Value) error {
		var ip *In
		if in.CanAddr() {
			ip = in.Addr().Interface().(*In)
		} else {
			ip = new(In)
			*ip = in.Interface().(In)
		}
		return fn(ip, out.Addr().Interface().(*Out), r)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.funcs[typePair{inT, outT}] = f
	r.plans.Clear()
}

// RegisterAcrossGroups registers a pair of conversion functions, as Register does, between
// two kinds of different groups that are one resource's objects seen through two groups
// (scheme.Resource.SharesStorageWith), like core/v1 and events.k8s.io/v1 Event. ToVersion
// refuses to convert between groups except between exactly these two Go types.
func RegisterAcrossGroups[A, B any](s *scheme.Scheme, aToB func(in *A, out *B, sc Scope) error, bToA func(in *B, out *A, sc Scope) error) {
	Register(s, aToB)
	Register(s, bToA)
	r := registryOf(s)
	a, b := reflect.TypeFor[A](), reflect.TypeFor[B]()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acrossGroups[typePair{a, b}] = true
	r.acrossGroups[typePair{b, a}] = true
}

// convertsAcrossGroups reports whether RegisterAcrossGroups registered the pair.
func (r *registry) convertsAcrossGroups(in, out reflect.Type) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acrossGroups[typePair{in, out}]
}

// Convert converts *in into *out: in and out are pointers to any two types. It uses the
// function registered for the pair if there is one, and the automatic field-by-field
// conversion otherwise (see the package documentation for its rules). The output shares
// no mutable memory with the input. An automatic plan that cannot convert every field
// fails, naming the fields, before anything is written.
func Convert(s *scheme.Scheme, in, out any) error {
	return registryOf(s).convert(in, out, strict)
}

// AutoConvert runs the automatic field-by-field conversion of *in into *out, ignoring a
// function registered for exactly this pair (functions registered for nested pairs are
// still used). Fields it cannot convert, at any depth where no function is registered,
// are skipped and left for the caller: registered functions call AutoConvert first and
// then fix up what differs. Use Convert, not AutoConvert, everywhere else.
func AutoConvert(s *scheme.Scheme, in, out any) error {
	return registryOf(s).convert(in, out, autoTop)
}

// Convert implements Scope.
func (r *registry) Convert(in, out any) error { return r.convert(in, out, strict) }

// AutoConvert implements Scope.
func (r *registry) AutoConvert(in, out any) error { return r.convert(in, out, autoTop) }

func (r *registry) convert(in, out any, m mode) error {
	iv, ov := reflect.ValueOf(in), reflect.ValueOf(out)
	if iv.Kind() != reflect.Pointer || iv.IsNil() {
		return fmt.Errorf("conversion: input must be a non-nil pointer, got %T", in)
	}
	if ov.Kind() != reflect.Pointer || ov.IsNil() {
		return fmt.Errorf("conversion: output must be a non-nil pointer, got %T", out)
	}
	c := r.plan(iv.Type().Elem(), ov.Type().Elem(), m)
	if m == strict && len(c.problems) > 0 {
		return &PlanError{In: iv.Type().Elem(), Out: ov.Type().Elem(), Fields: problemStrings(c.problems)}
	}
	if err := c.fn(iv.Elem(), ov.Elem()); err != nil {
		return fmt.Errorf("converting %v to %v: %w", iv.Type().Elem(), ov.Type().Elem(), err)
	}
	return nil
}

// PlanError says the automatic conversion of a pair of types cannot convert every field:
// a field exists on only one side, or the two fields' types do not convert automatically.
// Register a function for the pair (or a nested pair) to handle those fields.
type PlanError struct {
	In, Out reflect.Type
	// Fields describe each field that cannot be converted, by its path from the top.
	Fields []string
}

// Error lists the pair and every field that cannot be converted.
func (e *PlanError) Error() string {
	msg := fmt.Sprintf("conversion: no automatic conversion from %v to %v; register a conversion function for the pair or a nested pair:", e.In, e.Out)
	for _, f := range e.Fields {
		msg += "\n\t" + f
	}
	return msg
}

// ErrPlan is matched by every *PlanError with errors.Is.
var ErrPlan = errors.New("conversion: no automatic conversion")

// Is makes errors.Is(err, ErrPlan) true.
func (e *PlanError) Is(target error) bool { return target == ErrPlan }
