// Package strategies holds kube-apiserver's rules on writes of the built-in kinds that
// package builtin registers, as the strategies a Handler or registry applies to them
// (pass them as rest.Options.Strategies):
//
//   - [Builtin], for every built-in kind: a Secret's stringData merged into data and
//     its type defaulted to Opaque and never changed; ConfigMap and Secret keys checked
//     as kube's IsConfigMapKey checks them; immutable ConfigMaps and Secrets; no
//     metadata.generation, as none of kube's strategies of these kinds sets one; a
//     SelfSubjectReview answered with the requesting user and never stored; and the
//     rules of RBAC and Authorization;
//   - [RBAC]: the RBAC objects validated as kube validates them and checked for
//     privilege escalation as kube checks them (a user grants only permissions the
//     Handler's Authorizer allows the user, unless allowed the verb escalate or bind);
//   - [Authorization]: the access reviews answered by the Handler's own Authorizer
//     (authz.Authorize) and never stored, so that kubectl auth can-i works.
//
// Package authz's RBAC authorizer follows the RBAC objects these rules let into storage.
package strategies
