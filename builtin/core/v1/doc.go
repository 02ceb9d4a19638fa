// Package v1 holds the core/v1 kinds a controller test needs, laid out like
// k8s.io/api/core/v1 (import it as corev1): Namespace, ConfigMap, Secret, ServiceAccount
// and Event with their lists, and the ObjectReference, LocalObjectReference,
// EventSource and EventSeries they carry. The kinds are plain types with kube's JSON
// names; package builtin registers them in a scheme.
package v1
