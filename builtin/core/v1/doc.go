// Package v1 holds the core/v1 kinds, laid out like k8s.io/api/core/v1 (import it as
// corev1): Namespace, ConfigMap, Secret, ServiceAccount and Event with their lists, written
// by hand, and the Pod and PodTemplate kinds with every type they carry
// (zz_generated.types.go, generated from k8s.io/api by internal/typegen). The kinds are
// plain types with kube's JSON names and protobuf tags; package builtin registers them in a
// scheme.
package v1
