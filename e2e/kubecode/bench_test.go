package kubecode

import (
	"context"
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validPods are the bodies of the benchmark: generated Pods with only valid mutations
// (kube's code accepts each; the benchmark checks it).
func validPods(b *testing.B) [][]byte {
	var bodies [][]byte
	for _, c := range Generate("Pod", 26, 400) {
		if c.Invalid {
			continue
		}
		body := JSON(c.Body)
		if errs, err := DefaultValidate("Pod", c.Namespace, body); err != nil || len(errs) > 0 {
			b.Fatalf("%s: kube refuses a valid pod: %v %v", c, err, errs)
		}
		bodies = append(bodies, body)
	}
	if len(bodies) < 50 {
		b.Fatalf("only %d valid pods", len(bodies))
	}
	return bodies
}

// BenchmarkPodDefaultValidate is the defaulting and validation of a Pod's create, without
// storage, on the same generated valid Pods: from the v1 JSON body to the validated
// internal object. kube: its legacy codec's decode (with defaulting and conversion),
// the pod strategy's PrepareForCreate and rest.ValidateCreate (strategy.Validate,
// metadata, declarative validation). apikit: its JSON decode, conversion.Default,
// conversion to internal, the Pod strategy's PrepareForCreate and Validate and the
// metadata validation the registry runs.
func BenchmarkPodDefaultValidate(b *testing.B) {
	bodies := validPods(b)
	b.Run("kube", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			errs, err := DefaultValidate("Pod", "ns1", bodies[i%len(bodies)])
			if err != nil || len(errs) > 0 {
				b.Fatal(err, errs)
			}
			i++
		}
	})
	b.Run("apikit", func(b *testing.B) {
		s := newApikit(b).scheme
		st, ok := strategies.Builtin()[corev1.Pods].(registry.StrategyFor[*corev1.Pod])
		if !ok || st.Validate == nil {
			b.Skip("apikit has no Pod strategy with a Validate hook yet (strategies.Builtin()[corev1.Pods])")
		}
		res, ok := s.Resource(corev1.Pods)
		if !ok {
			b.Skip("apikit does not serve pods")
		}
		ser := codec.NewJSON(s)
		gvk := scheme.GroupVersionKind{Version: "v1", Kind: "Pod"}
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r, err := ser.Decode(bodies[i%len(bodies)], &gvk, nil)
			if err != nil {
				b.Fatal(err)
			}
			obj, err := conversion.AsObject(r.Object)
			if err != nil {
				b.Fatal(err)
			}
			conversion.Default(s, obj)
			in, err := conversion.ObjectToInternal(s, obj, gvk)
			if err != nil {
				b.Fatal(err)
			}
			pod := in.(*corev1.Pod)
			if st.PrepareForCreate != nil {
				st.PrepareForCreate(ctx, pod)
			}
			errs := st.Validate(ctx, pod)
			errs = append(errs, validation.ValidateObjectMeta(pod, true, res.NameValidation, validation.NewPath("metadata"))...)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			i++
		}
	})
}
