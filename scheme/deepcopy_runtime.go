package scheme

import "unsafe" // also what go:linkname requires

// The runtime's typed allocation and copy, as package reflect reaches them. Copiers
// allocate through these rather than through reflect.New and reflect.Value.Grow, which
// wrap the same calls in Values and cost more than the copy of a small slice itself. The
// runtime keeps these names and signatures for the packages that link to them (see
// go.dev/issue/67401); each takes the type word of the element type (typeWord).

//go:linkname unsafeNew reflect.unsafe_New
func unsafeNew(typ unsafe.Pointer) unsafe.Pointer

//go:linkname unsafeNewArray reflect.unsafe_NewArray
func unsafeNewArray(typ unsafe.Pointer, n int) unsafe.Pointer

//go:linkname typedmemmove reflect.typedmemmove
func typedmemmove(typ, dst, src unsafe.Pointer)

//go:linkname typedslicecopy reflect.typedslicecopy
func typedslicecopy(elemType unsafe.Pointer, dst, src sliceHeader) int
