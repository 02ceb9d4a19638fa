// Package v1alpha3 holds the scheduling.k8s.io/v1alpha3 types that a Job's alpha
// spec.schedulingGroup carries, generated from k8s.io/api by internal/typegen; apikit serves
// no kind of this version.
package v1alpha3
