package envtest_test

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apikit-dev/apikit/envtest"
)

// BenchmarkEnvironmentStart measures Start with generated CRDs, each established before
// Start returns (controller-runtime's envtest takes 7-15 s to start kube-apiserver and
// etcd). Stop is not timed.
func BenchmarkEnvironmentStart(b *testing.B) {
	for _, n := range []int{0, 10, 50} {
		crds := make([]*apiextensionsv1.CustomResourceDefinition, n)
		for i := range crds {
			crds[i] = gadgetCRD(i)
		}
		b.Run(fmt.Sprintf("crds=%d", n), func(b *testing.B) {
			for b.Loop() {
				env := &envtest.Environment{CRDs: crds}
				if _, err := env.Start(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
