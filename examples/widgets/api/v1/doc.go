// Package v1 is version v1 of the toys.example.com API: the preferred version and the
// one objects are stored at. It holds the wire types of Widget and Warehouse, their
// defaulting functions, and AddToScheme, which registers both with a scheme.
//
// Every v1 field has a namesake in package hub, so v1 converts to and from the hub
// field by field with no hand-written conversion functions.
package v1
