// Package hub holds the internal (hub) form of the toys.example.com kinds: the
// in-memory representation every served version (v1, v1alpha1) converts to and from,
// and the form that defaulting has finished with and validation checks.
//
// Hub types never travel on the wire; they are registered under
// scheme.InternalVersion. Their Go field names match the versioned types wherever the
// meaning is the same, so the automatic field-by-field conversion covers those fields
// and only what differs needs a hand-written function. They carry the same JSON tags
// as v1 so that field paths (selectors, printer columns) read the same on every form.
package hub
