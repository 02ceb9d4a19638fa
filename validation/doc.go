// Package validation reports what is wrong with an API object in the shape
// Kubernetes clients expect.
//
// A validation function walks an object and returns an [ErrorList]: one [*Error] per
// problem, each naming the offending field by its [Path] (spec.parts[2].name,
// metadata.labels) and carrying an [ErrorType] such as FieldValueRequired or
// FieldValueInvalid. The messages are byte-for-byte those of k8s.io/apimachinery's
// field errors, so kubectl prints exactly what it prints against kube-apiserver:
//
//	metadata.name: Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of ...
//
// [ErrorList.ToStatus] turns a list into the 422 Invalid Status kube-apiserver sends,
// with one StatusCause per error; package rest writes it on the wire.
//
// Ready-made rules cover what every object shares: names ([IsDNS1123Subdomain],
// [IsDNS1123Label], [IsDNS1035Label], and the name functions [NameIsDNSSubdomain],
// [NameIsDNSLabel] used by [ValidateObjectMeta]), label keys and values
// ([IsQualifiedName], [IsValidLabelValue], [ValidateLabels]), annotations,
// finalizers, owner references and managed fields, on create ([ValidateObjectMeta])
// and on update ([ValidateObjectMetaUpdate]). The reference for every message and
// field path is Kubernetes 1.37 (k8s.io/apimachinery v0.37 and k8s.io/kubernetes
// pkg/apis/core/validation for finalizer names).
package validation
