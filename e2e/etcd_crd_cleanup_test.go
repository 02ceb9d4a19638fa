package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
)

// collidingKubeCRD is a CRD named after a resource the server already serves.
func collidingKubeCRD(group, plural, kind string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, testing only"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}},
			}},
		},
	}
}

// TestEtcd_DeletingCRDsNamedAfterBuiltInResourcesKeepsTheirObjects creates, behind a
// real etcd, a Role, a Lease and a CRD with an object, then CRDs named after roles,
// leases and customresourcedefinitions, deletes those three through client-go and
// checks that every other object is still there and the CRDs are gone.
func TestEtcd_DeletingCRDsNamedAfterBuiltInResourcesKeepsTheirObjects(t *testing.T) {
	e := startTestEtcd(t)
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	codecScheme := s.Clone()
	if err := apiextensions.AddToScheme(codecScheme); err != nil {
		t.Fatal(err)
	}
	store := newEtcdStore(t, e, etcdstore.Options{Codec: crdStorageCodec{Codec: etcdstore.NewCodec(codecScheme), cbor: cbor.New(codecScheme)}})
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin()}, Storage: store, CRDAPI: true, TLS: true, Token: "crd-token"})
	cfg := &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	// JSON, as kubectl sends: the CRD server answered client-go's protobuf Lease with a
	// 415 (accepted media types: JSON, YAML, CBOR), a matter apart from this test.
	cfg.ContentType = "application/json"
	kube := kubernetes.NewForConfigOrDie(cfg)
	crdClient := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.RbacV1().Roles("app").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	holder := "a"
	if _, err := kube.CoordinationV1().Leases("app").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gizmos := collidingKubeCRD("tools.example.com", "gizmos", "Gizmo", apiextensionsv1.NamespaceScoped)
	gizmos.Annotations = nil
	if _, err := crdClient.Create(ctx, gizmos, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "gizmos established", func() bool {
		c, err := crdClient.Get(ctx, gizmos.Name, metav1.GetOptions{})
		return err == nil && crdCondition(c, apiextensionsv1.Established) == apiextensionsv1.ConditionTrue
	})
	gvr := schema.GroupVersionResource{Group: "tools.example.com", Version: "v1", Resource: "gizmos"}
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "tools.example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g1"}}}
	if _, err := dyn.Resource(gvr).Namespace("app").Create(ctx, g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	colliding := []*apiextensionsv1.CustomResourceDefinition{
		collidingKubeCRD("rbac.authorization.k8s.io", "roles", "Role", apiextensionsv1.NamespaceScoped),
		collidingKubeCRD("coordination.k8s.io", "leases", "Lease", apiextensionsv1.NamespaceScoped),
		collidingKubeCRD("apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", apiextensionsv1.ClusterScoped),
	}
	for _, crd := range colliding {
		if _, err := crdClient.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating CRD %s: %v", crd.Name, err)
		}
		waitUntil(t, ctx, crd.Name+" observed", func() bool {
			c, err := crdClient.Get(ctx, crd.Name, metav1.GetOptions{})
			return err == nil && crdCondition(c, apiextensionsv1.NamesAccepted) != ""
		})
	}
	for _, crd := range colliding {
		if err := crdClient.Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range colliding {
		waitUntil(t, ctx, crd.Name+" gone", func() bool {
			_, err := crdClient.Get(ctx, crd.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	}

	if roles, err := kube.RbacV1().Roles("app").List(ctx, metav1.ListOptions{}); err != nil || len(roles.Items) != 1 {
		t.Errorf("roles after the CRD roles.rbac.authorization.k8s.io was deleted: %v, %v; want the one created", roles, err)
	}
	if leases, err := kube.CoordinationV1().Leases("app").List(ctx, metav1.ListOptions{}); err != nil || len(leases.Items) != 1 {
		t.Errorf("leases after the CRD leases.coordination.k8s.io was deleted: %v, %v; want the one created", leases, err)
	}
	if c, err := crdClient.Get(ctx, gizmos.Name, metav1.GetOptions{}); err != nil || crdCondition(c, apiextensionsv1.Established) != apiextensionsv1.ConditionTrue {
		t.Errorf("CRD %s after customresourcedefinitions.apiextensions.k8s.io was deleted: %v; want it kept and established", gizmos.Name, err)
	}
	if _, err := dyn.Resource(gvr).Namespace("app").Get(ctx, "g1", metav1.GetOptions{}); err != nil {
		t.Errorf("gizmo g1 after customresourcedefinitions.apiextensions.k8s.io was deleted: %v", err)
	}
}

// crdStorageCodec is etcd's codec of the built-in kinds and CRDs that reads the
// objects of kinds it does not know, the CRDs', as unstructured.
type crdStorageCodec struct {
	etcdstore.Codec
	cbor codec.Serializer
}

func (c crdStorageCodec) Decode(data []byte) (scheme.Object, error) {
	obj, err := c.Codec.Decode(data)
	var nre *scheme.NotRegisteredError
	if !errors.As(err, &nre) {
		return obj, err
	}
	res, err := c.cbor.Decode(data, nil, &scheme.Unstructured{})
	if err != nil {
		return nil, err
	}
	return res.Object.(*scheme.Unstructured), nil
}

// crdCondition returns the status of a CRD's condition, "" when it has none.
func crdCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) apiextensionsv1.ConditionStatus {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}
