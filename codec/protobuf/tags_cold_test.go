package protobuf

import (
	"sync"
	"testing"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// BenchmarkRegisterType_Cold derives and compiles Pod and Deployment from nothing, as
// the first registration of a process does: the caches are emptied each time.
func BenchmarkRegisterType_Cold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		derived, plans = sync.Map{}, sync.Map{}
		s := scheme.New()
		if err := RegisterType(s, corev1.SchemeGroupVersion.WithKind("Pod"), &corev1.Pod{}); err != nil {
			b.Fatal(err)
		}
		if err := RegisterType(s, appsv1.SchemeGroupVersion.WithKind("Deployment"), &appsv1.Deployment{}); err != nil {
			b.Fatal(err)
		}
	}
}
