// Package apierrors builds the Kubernetes Status errors of the API: the codes, reasons,
// messages and details of k8s.io/apimachinery's api/errors, so that clients (kubectl,
// client-go's errors.IsNotFound, ...) read them alike, and maps the errors of package
// storage to them without ever showing a storage key.
//
// Both the HTTP layer (package rest) and the object lifecycle (package registry)
// answer with these; a strategy hook or an admission plugin may return one to be sent
// as it is.
package apierrors
