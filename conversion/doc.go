// Package conversion converts API objects between the versions of a group, applies
// defaults, and moves typed objects to and from their unstructured (map) form, with no
// code generation: plans are compiled by reflection once per pair of types and cached in
// the scheme.
//
// # Star conversion through the internal hub
//
// A group with several versions of a kind registers an internal version of it
// (scheme.InternalVersion), the hub that can express everything each served version can.
// ToVersion converts an object of any registered version to the hub and from the hub to
// the target: v1alpha1 -> internal -> v1, never v1alpha1 -> v1 directly. So a group with
// n versions needs 2n conversions, not n².
//
// A kind served in one version needs no hub: there is nothing to convert between, and
// package rest passes its objects through as they are (validating and storing that
// version). Register an internal version when a second version arrives.
//
// # Automatic conversion
//
// Convert(s, in, out) converts between any two Go types. For a pair of types with a
// function registered by Register, that function is used, at the top level and nested at
// any depth. Otherwise the automatic conversion applies:
//
//   - fields of two structs are matched by Go field name (embedded structs by type name);
//   - values of the same basic kind (bool, ints, uints, floats, string) convert even if
//     their named types differ (v1.Color to internal.Color); different kinds do not
//     (int32 to int64 needs a registered function);
//   - pointers, slices, arrays, maps and nested structs convert element by element,
//     keeping nil apart from empty;
//   - values of the same type are deep-copied; structs with unexported fields (time.Time)
//     are copied as values;
//   - scheme.TypeMeta is not copied between different types: apiVersion and kind belong to
//     the version and ToVersion sets them.
//
// A field that exists on only one side, or whose types do not convert automatically, makes
// the plan fail with a *PlanError naming every such field by path, before anything is
// written: data is never dropped silently. Register a function for the pair (or for the
// nested pair that differs) to handle it. A registered function typically calls
// AutoConvert first, which converts every field the two types share at every depth and
// skips the others, and then fixes up what differs:
//
//	conversion.Register(s, func(in *v1alpha1.Widget, out *hub.Widget, sc conversion.Scope) error {
//		if err := sc.AutoConvert(in, out); err != nil {
//			return err
//		}
//		out.Spec.Color = in.Spec.Paint
//		return nil
//	})
//
// Calling Convert (or sc.Convert) on the very pair a function is registered for, from inside
// that function, recurses forever: use AutoConvert there.
//
// Every conversion produces output that shares no mutable memory with its input.
// Round-tripping through the hub without loss is what package conversiontest checks.
//
// # Defaulting
//
// RegisterDefaults registers a defaulting function per versioned Go type. Default applies
// them in place after decoding and before conversion to the internal version: the
// object's own type first, then every nested value (list items included) whose type has one.
//
// # Unstructured
//
// ToUnstructured and FromUnstructured move typed objects to and from map[string]any with the
// exact semantics of encoding/json (tags, omitempty, embedded structs, MarshalJSON and
// MarshalText), numbers being int64 when integral and float64 otherwise, without going
// through JSON text. Like any JSON document held as int64 and float64, a uint64 above
// math.MaxInt64 travels as float64 and may lose its last digits. FromUnstructured matches
// keys case-sensitively (as Kubernetes does, unlike encoding/json) and puts numbers into
// interface fields as int64 or float64 (encoding/json would use float64 for all).
package conversion
