// Package apikit is a toolkit for building Kubernetes-style API servers in Go that real
// Kubernetes clients (kubectl, client-go, controller-runtime) talk to unchanged.
//
// A host program registers its resource types in a [scheme.Scheme], picks a storage
// backend and mounts the handler of package rest on its own http.Server (rest's
// ExampleNew is a complete program in a few dozen lines). A request travels one path,
// each step a package with one job:
//
//	decode (codec) -> convert to the internal hub and default (conversion)
//	-> validate (validation) -> store (storage) -> fan out to watchers (watch)
//	-> convert to the requested version (conversion) -> encode (codec)
//
// The packages, from the bottom up:
//
//   - [github.com/apikit-dev/apikit/scheme]: the object model (TypeMeta, ObjectMeta,
//     Status, Unstructured), deep copy without code generation, and the registry of
//     kinds, resources, scopes and versions.
//   - [github.com/apikit-dev/apikit/scheme/openapi]: OpenAPI v2 and v3 documents derived
//     from the registered Go types by reflection.
//   - [github.com/apikit-dev/apikit/validation]: field paths, field error lists and the
//     ready rules for names, labels, annotations and metadata.
//   - [github.com/apikit-dev/apikit/conversion]: conversion between the versions of a
//     group (through an internal hub when it has several), defaulting, typed <->
//     unstructured; [github.com/apikit-dev/apikit/conversion/conversiontest] checks
//     round trips with random objects.
//   - [github.com/apikit-dev/apikit/codec]: JSON and YAML with strict field checking,
//     media types and Accept negotiation;
//     [github.com/apikit-dev/apikit/codec/cbor] and
//     [github.com/apikit-dev/apikit/codec/protobuf]: Kubernetes' CBOR encoding and
//     protobuf envelope, with their watch framings. Each serializer describes its own
//     media type, stream framing and the kinds and targets it can encode, so a new media
//     type is one package; [github.com/apikit-dev/apikit/codec/standard] is the default
//     set rest.Options.Serializers falls back to.
//   - [github.com/apikit-dev/apikit/watch]: watch events and the fan-out broadcaster.
//   - [github.com/apikit-dev/apikit/storage]: the storage interface, resourceVersion
//     rules and selectors; [github.com/apikit-dev/apikit/storage/memory] and
//     [github.com/apikit-dev/apikit/storage/bolt] (durable, on bbolt) are its backends (the
//     module github.com/apikit-dev/apikit/storage/etcd is a third, for several replicas),
//     [github.com/apikit-dev/apikit/storage/cache] a watch cache in front of any of them, and
//     [github.com/apikit-dev/apikit/storage/storagetest] the conformance suite they all pass.
//   - [github.com/apikit-dev/apikit/patch]: JSON patch, merge patch, strategic merge
//     patch and server-side apply with managedFields.
//   - [github.com/apikit-dev/apikit/rest]: the http.Handler: routing, every verb and
//     subresource, watch, Status errors, authentication, authorization and admission
//     hooks, limits, metrics and audit, secure by default (no anonymous access and no
//     allow-all unless the host asks). [github.com/apikit-dev/apikit/authn] has
//     kube-apiserver's authenticators (client certificates, front-proxy headers, token
//     file, TokenReview), [github.com/apikit-dev/apikit/authz] its authorizers
//     (RBAC, SubjectAccessReview, privileged groups),
//     [github.com/apikit-dev/apikit/audit] audit.k8s.io events and policies and
//     [github.com/apikit-dev/apikit/metrics] the Prometheus registry behind
//     /metrics; [github.com/apikit-dev/apikit/serving] assembles them from
//     kube-apiserver's flags for an aggregated API server. Beside it,
//     [github.com/apikit-dev/apikit/rest/discovery] serves discovery,
//     /version and OpenAPI, [github.com/apikit-dev/apikit/rest/table] builds Table and
//     PartialObjectMetadata output, [github.com/apikit-dev/apikit/kubeconfig]
//     writes kubeconfigs and self-signed certificates, and
//     [github.com/apikit-dev/apikit/apitest] starts a whole server in-process for
//     tests.
//   - [github.com/apikit-dev/apikit/apiextensions]: CustomResourceDefinitions: apikit's
//     own apiextensions.k8s.io/v1 types, loading of manifests, kube's validation of a CRD
//     and its installation into a scheme as schema-only kinds, a CRD with conversion
//     strategy Webhook converting through its webhook, which
//     [github.com/apikit-dev/apikit/webhook] calls as kube-apiserver calls webhooks;
//     [github.com/apikit-dev/apikit/validation/structural] gives their structural
//     schemas kube's semantics (validation, pruning, defaulting), and
//     [github.com/apikit-dev/apikit/apiextensions/server] serves the customresourcedefinitions
//     resource, installing CRDs while the server runs. CEL validation rules live in the
//     module github.com/apikit-dev/apikit/cel (rest.Options.Rules = cel.New()), so that
//     servers without CEL do not depend on cel-go.
//   - [github.com/apikit-dev/apikit/builtin]: registers the Kubernetes built-in kinds a
//     controller test needs (Namespace, ConfigMap, Secret, ServiceAccount, Event, Lease,
//     Pod, PodTemplate, the apps/v1 workloads, SelfSubjectReview, the RBAC kinds and access
//     reviews) with kube's JSON, protobuf, defaults and table columns; their types are one
//     package per group version beneath it, laid out like k8s.io/api (builtin/core/v1 is
//     corev1, builtin/apps/v1 appsv1), the larger ones generated from k8s.io/api's source
//     by the module internal/typegen, and their write rules are
//     [github.com/apikit-dev/apikit/registry/strategies]. The API's value types are
//     [github.com/apikit-dev/apikit/quantity] (resource quantities) and scheme's
//     IntOrString and RawExtension; and
//     [github.com/apikit-dev/apikit/controllers]: the namespace lifecycle and garbage
//     collector of kube-controller-manager, run in-process over storage. The module
//     github.com/apikit-dev/apikit/envtest is a drop-in for controller-runtime's envtest
//     built on them and apitest.
//
// examples/widgets (a module of its own, since it can keep its objects in etcd) is a
// runnable server for an example group, toys.example.com, with two versions of Widget
// converting through a hub; README.md drives it with kubectl.
package apikit
