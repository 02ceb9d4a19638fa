// Package scheme is apikit's object model: the meta types every kind shares (TypeMeta,
// ObjectMeta, ListMeta, Status, Time), identifiers (GroupVersionKind and friends), the
// Object interfaces that typed structs and Unstructured maps both satisfy, deep copy
// without code generation, and the Scheme: the registry of kinds, resources, scopes and
// versions a server is built from.
package scheme
