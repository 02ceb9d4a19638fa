// Package v1 holds the coordination.k8s.io/v1 kinds, laid out like
// k8s.io/api/coordination/v1 (import it as coordinationv1): Lease, the lock of leader
// election, and LeaseList. Package builtin registers them in a scheme.
package v1
