// Package kubecode runs what kube-apiserver v1.37.2 does to a create and an update of a
// built-in object, in-process, with Kubernetes' own code (k8s.io/kubernetes): the v1 JSON is
// decoded with kube's legacy scheme codec (which defaults it, as the apiserver's decoder
// does) and converted to the internal version; the kind's registry strategy prepares,
// validates (imperatively and declaratively) and canonicalizes it, as
// k8s.io/apiserver's rest.BeforeCreate and rest.BeforeUpdate call it; the stored object is
// encoded back as v1 JSON, and a refusal is reported as the causes of the 422 Status that
// apimachinery's errors.NewInvalid builds from the field.ErrorList.
//
// It is the reference side of the differential tests of this module (TestDifferential_*),
// which feed the same generated objects to apikit. It is not a server: no storage, no
// admission, no managedFields, no watch.
package kubecode
