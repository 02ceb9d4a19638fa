// Package v1alpha1 is version v1alpha1 of the toys.example.com API. It serves Widget
// only, in a shape that differs from v1 yet round-trips through the hub without loss:
//
//   - spec.paint is v1's spec.color (a renamed field);
//   - spec.scaling.replicas is v1's spec.replicas (a restructured field);
//   - there is no status.conditions: a hub Widget's conditions travel in the
//     annotation ConditionsAnnotation (their JSON) and are restored from it, and the
//     annotation removed, on the way back to the hub.
//
// The hand-written conversion functions here handle exactly those differences; the
// rest of each object converts automatically.
package v1alpha1
