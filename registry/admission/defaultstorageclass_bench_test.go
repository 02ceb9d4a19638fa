package admission_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/registry/admission"
)

// BenchmarkDefaultStorageClass_CreateClaim creates claims without a class through the
// HTTP API, with no StorageClass and with 100 (one the default): the plugin lists the
// classes on each create, as kube's reads its informer's.
func BenchmarkDefaultStorageClass_CreateClaim(b *testing.B) {
	for _, classes := range []int{0, 100} {
		b.Run(fmt.Sprintf("classes=%d", classes), func(b *testing.B) {
			srv := storageServer(b, true)
			for i := range classes {
				sc := map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "example.com/csi",
					"metadata": map[string]any{"name": fmt.Sprintf("class-%03d", i)}}
				if i == classes/2 {
					sc["metadata"].(map[string]any)["annotations"] = map[string]any{admission.IsDefaultStorageClassAnnotation: "true"}
				}
				sendExpect(b, srv, http.MethodPost, "/apis/storage.k8s.io/v1/storageclasses", sc, http.StatusCreated)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				got := sendExpect(b, srv, http.MethodPost, claims, claim(fmt.Sprintf("c-%d", i), nil), http.StatusCreated)
				if classes > 0 && at(got, "spec", "storageClassName") != fmt.Sprintf("class-%03d", classes/2) {
					b.Fatalf("claim class %v", at(got, "spec", "storageClassName"))
				}
			}
		})
	}
}
