// Package rest turns a scheme and a storage.Interface into the http.Handler of a
// Kubernetes-style API server that kubectl and client-go talk to unchanged.
//
// New(Options) builds a *Handler. rest does what is HTTP; the object lifecycle between
// a decoded object and storage is package registry's, whose Store the Handler builds
// from its Options and calls from every verb. A request takes one path, readable top to
// bottom: recover (a panic is a 500 Status) -> observe (metrics, access log, audit) ->
// request info (ParseRequestInfo) -> the request deadline (?timeout=, 504) ->
// authenticate (Options.Authenticator, 401; anonymous only with Options.AllowAnonymous)
// -> impersonate (Impersonate-* headers, 403) -> the in-flight limits (429) -> authorize
// (Options.Authorizer, 403; health, readiness, liveness and /version are public) ->
// route (health checks, Options.Discovery, resources, verbs) -> read the body (limit:
// 413; type: 415) -> decode (fieldValidation Ignore/Warn/Strict) -> the URL's kind and
// version (400) -> defaults -> internal version (if the kind has one); for a patch, the
// JSON, merge, strategic merge or server-side apply patch applied to the stored object
// in the registry's update function -> the registry (server-set fields, strategy hooks,
// mutating admission, validation 422, validating admission, managedFields, the storage
// version, storage unless dryRun=All) -> the URL's version -> the negotiated encoding;
// errors as kube's Status in the negotiated media type.
//
// Errors are *scheme.Status values (package apierrors) with the codes, reasons,
// messages and details of kube-apiserver. A delete follows the object lifecycle of the
// registry: an object with finalizers is marked and stays; with
// Options.GarbageCollection a garbage collector (package controllers) carries out the
// propagation policy, and without one the server orphans dependents itself. Unless the
// scheme has a core namespaces resource, namespaces exist implicitly: GET
// /api/v1/namespaces/NAME answers an Active Namespace, as kubectl expects after a
// NotFound in a namespace other than default.
//
// # Watch
//
// A watch streams {"type": ..., "object": ...} events in the framing of the media type
// the Accept header negotiates, as kube-apiserver does; the events queued for a watch
// when it writes go out together, in one write and one flush (the same bytes as one
// event at a time, in fewer system calls under load):
//
//   - application/json: one WatchEvent JSON document per event, each ending in a
//     newline (Content-Type application/json);
//   - application/cbor: one CBOR data item per event, an RFC 8742 sequence
//     (Content-Type application/cbor-seq);
//   - application/vnd.kubernetes.protobuf: one protobuf WatchEvent per event, each
//     preceded by its length as a 4-byte big-endian integer (Content-Type
//     application/vnd.kubernetes.protobuf;stream=watch);
//   - ;as=Table or ;as=PartialObjectMetadata on one of the above: the same framing, with
//     each event's object converted to a meta.k8s.io Table (JSON and CBOR only) or to
//     PartialObjectMetadata.
//
// YAML has no stream framing: a watch that accepts only YAML is 406 Not Acceptable.
//
// Over HTTP/1.1 a watch writes on the connection itself once its header is out
// (http.Hijacker), each batch as one chunk in one write; its response says
// "Connection: close", as the connection cannot return to net/http. The host's
// http.Server.Shutdown ends such watches (the Handler registers with RegisterOnShutdown);
// Close alone does not reach them: they end with the request's context (a server's
// BaseContext), at their timeout, or when the client leaves. HTTP/2 watches, and those
// behind a middleware whose ResponseWriter cannot be hijacked, stay on the
// ResponseWriter.
package rest
