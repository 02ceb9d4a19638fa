// Package e2e holds apikit's compatibility and comparison tests: everything that needs
// Kubernetes' own libraries (k8s.io/apimachinery, client-go) to prove that apikit speaks
// the same wire format, or to measure apikit side by side with them. It is a module of its
// own so that users of apikit inherit none of these dependencies.
package e2e
