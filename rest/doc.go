// Package rest turns a scheme and a storage.Interface into the http.Handler of a
// Kubernetes-style API server that kubectl and client-go talk to unchanged.
//
// New(Options) builds a *Handler. Every request takes one path, readable top to bottom
// in this package: recover (a panic is a 500 Status) -> ParseRequestInfo -> authenticate
// (Options.Authenticator, 401) -> authorize (Options.Authorizer, 403) -> route
// (health checks, Options.Discovery, resources) -> read the body (limit: 413; type: 415)
// -> decode (fieldValidation Ignore/Warn/Strict) -> the URL's kind and version (400) ->
// defaults -> internal version -> server-set fields and Strategy hooks -> mutating
// admission -> validation (422) -> validating admission -> storage version -> storage
// (skipped with dryRun=All) -> the URL's version -> the negotiated encoding.
//
// Errors are *scheme.Status values with the codes, reasons, messages and details of
// kube-apiserver. Watches stream newline-terminated WatchEvent JSON documents. Objects
// with finalizers follow the DELETING state of the object lifecycle; since apikit has no
// garbage collector, propagationPolicy=Orphan is carried out by the server itself.
// Unless the scheme has a core namespaces resource, namespaces exist implicitly: GET
// /api/v1/namespaces/NAME answers an Active Namespace, as kubectl expects after a
// NotFound in a namespace other than default.
package rest
