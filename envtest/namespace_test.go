package envtest_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/envtest"
)

// TestClient_ClusterScopedObjectsWithANamespaceAreStoredWithoutIt writes through
// controller-runtime's client what kubebuilder's and operator-sdk's scaffolded suites
// write, a Namespace whose metadata.namespace is its own name, and a ClusterRole with a
// namespace: kube-apiserver stores both without one, on create, update and patch.
func TestClient_ClusterScopedObjectsWithANamespaceAreStoredWithoutIt(t *testing.T) {
	c := newClient(t, startEnv(t, &envtest.Environment{}))
	ctx := context.Background()
	tests := []struct {
		name  string
		obj   client.Object // written with metadata.namespace set
		write func(obj client.Object) error
	}{
		{"a Namespace named as its namespace is created", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scaffolded", Namespace: "scaffolded"}},
			func(obj client.Object) error { return c.Create(ctx, obj) }},
		{"a ClusterRole with a namespace is created", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "scaffolded-role", Namespace: "default"}},
			func(obj client.Object) error { return c.Create(ctx, obj) }},
		{"a Namespace updated with its namespace set", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "updated"}},
			func(obj client.Object) error {
				if err := c.Create(ctx, obj); err != nil {
					return err
				}
				obj.SetNamespace("updated")
				obj.SetLabels(map[string]string{"written": "again"})
				return c.Update(ctx, obj)
			}},
		{"a Namespace patched with its namespace set", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "patched"}},
			func(obj client.Object) error {
				if err := c.Create(ctx, obj); err != nil {
					return err
				}
				base := obj.DeepCopyObject().(client.Object)
				obj.SetNamespace("patched")
				obj.SetLabels(map[string]string{"written": "again"})
				return c.Patch(ctx, obj, client.MergeFrom(base))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.write(tt.obj); err != nil {
				t.Fatalf("write: %v", err)
			}
			if ns := tt.obj.GetNamespace(); ns != "" {
				t.Errorf("the answer's metadata.namespace = %q, want none", ns)
			}
			got := tt.obj.DeepCopyObject().(client.Object)
			if err := c.Get(ctx, client.ObjectKey{Name: tt.obj.GetName()}, got); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if ns := got.GetNamespace(); ns != "" {
				t.Errorf("stored metadata.namespace = %q, want none", ns)
			}
		})
	}
}
