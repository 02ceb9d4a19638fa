// Package api is the example API group toys.example.com, the types a widgets server
// serves: Widget (namespaced; versions v1 and v1alpha1; subresources status and scale)
// and Warehouse (cluster-scoped; version v1). Both convert through the internal hub in
// package hub; v1 is the preferred and the storage version.
//
// AddToScheme registers everything a server needs about the group — kinds of every
// version, version priority, resources, conversions and defaults — and the Validate
// functions check hub objects the way kube-apiserver's validation does, with the same
// field paths and messages.
//
// The subpackages are laid out like a Kubernetes API group: hub (internal types),
// v1 and v1alpha1 (wire types, defaults, conversions).
package api
