package e2e

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/conversion"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Typed <-> unstructured, side by side with apimachinery's DefaultUnstructuredConverter:
//
//	go test ./e2e -run '^$' -bench 'Unstructured(To|From)' -count 10 > out.txt; benchstat -col /impl out.txt

// Both converters must produce the same map for the same object, or the benchmark
// would compare different work.
func TestToUnstructured_SameMapAsApimachinery(t *testing.T) {
	for _, parts := range []int{0, 20, 200} {
		ours, err := conversion.ToUnstructured(widgetFixture(parts))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := runtime.DefaultUnstructuredConverter.ToUnstructured(k8sWidgetFixture(t, parts))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ours, theirs) {
			a, _ := json.Marshal(ours)
			b, _ := json.Marshal(theirs)
			t.Fatalf("parts=%d: maps differ\n ours %s\nk8s's %s", parts, a, b)
		}
		var back toysv1.Widget
		if err := conversion.FromUnstructured(theirs, &back); err != nil {
			t.Fatal(err)
		}
		// Compared as JSON: decoded times are in the local zone, the fixture's in UTC.
		got, _ := json.Marshal(&back)
		want, _ := json.Marshal(widgetFixture(parts))
		if string(got) != string(want) {
			t.Fatalf("parts=%d: FromUnstructured of apimachinery's map gives\n%s\nwant\n%s", parts, got, want)
		}
	}
}

func BenchmarkUnstructuredToFromTyped(b *testing.B) {
	for _, sz := range sizes {
		w := widgetFixture(sz.parts)
		kw := k8sWidgetFixture(b, sz.parts)
		m, _ := conversion.ToUnstructured(w)
		b.Run("to/"+sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := conversion.ToUnstructured(w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("to/"+sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(kw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("from/"+sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var out toysv1.Widget
				if err := conversion.FromUnstructured(m, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("from/"+sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var out k8sWidget
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
