// Package v1 holds the authorization.k8s.io/v1 kinds, laid out like
// k8s.io/api/authorization/v1 (import it as authorizationv1): SubjectAccessReview,
// SelfSubjectAccessReview and LocalSubjectAccessReview with their specs, attributes and
// status. A server answers a review on create and stores nothing; package builtin
// registers the kinds in a scheme.
package v1
