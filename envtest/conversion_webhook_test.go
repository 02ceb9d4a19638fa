package envtest_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/envtest"
)

// shapeConverter is a conversion webhook written with kube's own ConversionReview
// types: v1 Shapes have spec.sides, v2 spec.edges.
func shapeConverter(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review apiextensionsv1.ConversionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			t.Errorf("webhook: a review that does not decode: %v", err)
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, raw := range review.Request.Objects {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw.Raw); err != nil {
				t.Errorf("webhook: an object that does not decode: %v", err)
			}
			from, to := "sides", "edges"
			if review.Request.DesiredAPIVersion == "example.com/v1" {
				from, to = to, from
			}
			if n, found, _ := unstructured.NestedInt64(u.Object, "spec", from); found {
				unstructured.RemoveNestedField(u.Object, "spec", from)
				_ = unstructured.SetNestedField(u.Object, n, "spec", to)
			}
			u.SetAPIVersion(review.Request.DesiredAPIVersion)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Object: u})
		}
		review.Response, review.Request = resp, nil
		_ = json.NewEncoder(w).Encode(&review)
	})
}

func shapeCRD(url string, caBundle []byte) *apiextensionsv1.CustomResourceDefinition {
	schemaWith := func(field string) *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{field: {Type: "integer"}}},
		}}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "shapes.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "shapes", Singular: "shape", Kind: "Shape", ListKind: "ShapeList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schemaWith("sides")},
				{Name: "v2", Served: true, Schema: schemaWith("edges")},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
				ConversionReviewVersions: []string{"v1"},
			}},
		},
	}
}

// A CRD that a client creates keeps its conversion webhook (Start gives the CRDs it
// installs controller-runtime's: see TestStart_PointsTheConversionOfConvertibleCRDsAtTheWebhookServer).
func TestStart_ServesAMultiVersionCRDThroughItsConversionWebhook(t *testing.T) {
	hook := httptest.NewTLSServer(shapeConverter(t))
	defer hook.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	cfg := startEnv(t, &envtest.Environment{})
	c := crdClient(t, cfg)
	ctx := context.Background()
	createEstablished(t, c, shapeCRD(hook.URL+"/convert", ca))
	v1, v2 := shapeV1, shapeV2

	if err := c.Create(ctx, object(v2, "default", "triangle", map[string]any{"edges": int64(3)})); err != nil {
		t.Fatalf("create in v2: %v", err)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(v1)
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "triangle"}, stored); err != nil {
		t.Fatalf("get in v1: %v", err)
	}
	if n, _, _ := unstructured.NestedInt64(stored.Object, "spec", "sides"); n != 3 {
		t.Errorf("the v1 object = %v, want spec.sides 3", stored.Object)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "ShapeList"})
	if err := c.List(ctx, list); err != nil {
		t.Fatalf("list in v2: %v", err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("list in v2 = %d items", len(list.Items))
	}
	if n, _, _ := unstructured.NestedInt64(list.Items[0].Object, "spec", "edges"); n != 3 || list.Items[0].GetAPIVersion() != "example.com/v2" {
		t.Errorf("the v2 item = %v, want spec.edges 3", list.Items[0].Object)
	}
}

// createEstablished creates crd and waits until it is established.
func createEstablished(t *testing.T, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
	if err := c.Create(ctx, crd); err != nil {
		t.Fatalf("create CRD %s: %v", crd.Name, err)
	}
	for range 500 {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
			t.Fatalf("get CRD %s: %v", crd.Name, err)
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("CRD %s is not established", crd.Name)
}
