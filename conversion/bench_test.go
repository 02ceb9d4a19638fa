package conversion_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// benchGadget is a Widget-like object with the given number of parts.
func benchGadget(parts int) *Gadget {
	g := sampleGadget()
	g.Annotations = map[string]string{"note": "benchmark object", "owner": "team-a"}
	g.UID = "0f2b6c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
	g.ResourceVersion = "123456"
	g.Spec.Parts = make([]Part, parts)
	for i := range g.Spec.Parts {
		g.Spec.Parts[i] = Part{Name: "part-number-" + strconv.Itoa(i), Count: int64(i * 3)}
	}
	return g
}

func BenchmarkToVersion(b *testing.B) {
	s := newScheme()
	hub := benchGadget(20)
	v1obj, err := conversion.ToVersion(s, hub, v1GV)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("internal-to-v1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := conversion.ToVersion(s, hub, v1GV); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v1-to-internal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := conversion.ToVersion(s, v1obj, groupGV); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v2-to-v1-through-hub", func(b *testing.B) {
		v2obj, err := conversion.ToVersion(s, hub, v2GV)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := conversion.ToVersion(s, v2obj, v1GV); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUnstructured(b *testing.B) {
	obj := benchGadget(200)
	data, _ := json.Marshal(obj)
	b.Logf("object is %d bytes of JSON", len(data))
	m, err := conversion.ToUnstructured(obj)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ToUnstructured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := conversion.ToUnstructured(obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FromUnstructured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var g Gadget
			if err := conversion.FromUnstructured(m, &g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json-round-trip-for-comparison", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, _ := json.Marshal(obj)
			var out map[string]any
			if err := json.Unmarshal(data, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDefault(b *testing.B) {
	s := newScheme()
	list := &V1GadgetList{Items: make([]V1Gadget, 100)}
	b.ReportAllocs()
	for b.Loop() {
		for i := range list.Items {
			list.Items[i].Spec.Replicas = nil
		}
		conversion.Default(s, list)
	}
	_ = scheme.GroupVersion{}
}
