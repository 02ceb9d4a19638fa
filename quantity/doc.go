// Package quantity is the fixed-point number Kubernetes uses for resource amounts
// ("500m" CPU, "1Gi" memory): Quantity, with the parsing, canonical form, JSON and CBOR
// of k8s.io/apimachinery's resource.Quantity, so a Pod's resources read and write
// exactly as kube-apiserver serves them.
//
// A Quantity is a value: copying it copies it (its arbitrary-precision form is never
// modified in place), so a reflective deep copy needs no method. Amounts that fit an
// int64 times a power of ten, which are nearly all of them, never touch math/big.
//
// The package imports only the standard library, so the built-in API types can use
// it without pulling anything else in.
package quantity
