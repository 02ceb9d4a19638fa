package kubecode

import (
	"context"
	"testing"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validCreates are the generated valid creates of kind that kube's code accepts.
func validCreates(b *testing.B, kind string) [][]byte {
	var bodies [][]byte
	for _, c := range Generate(kind, 26, 400) {
		if c.Invalid || c.Old != nil {
			continue
		}
		body := JSON(c.Body)
		if errs, err := DefaultValidate(kind, c.Namespace, body); err != nil || len(errs) > 0 {
			continue // a valid-looking mutation kube refuses (the differential test compares those)
		}
		bodies = append(bodies, body)
	}
	if len(bodies) < 20 {
		b.Fatalf("only %d valid %s creates", len(bodies), kind)
	}
	return bodies
}

// BenchmarkNetworkingDefaultValidate is BenchmarkPodDefaultValidate for Ingresses and
// NetworkPolicies: from the v1 JSON body of a valid generated create to the validated
// object, on kube's code and on apikit's.
func BenchmarkNetworkingDefaultValidate(b *testing.B) {
	b.Run("Ingress", func(b *testing.B) {
		benchDefaultValidate[*networkingv1.Ingress](b, "Ingress", networkingv1.Ingresses)
	})
	b.Run("NetworkPolicy", func(b *testing.B) {
		benchDefaultValidate[*networkingv1.NetworkPolicy](b, "NetworkPolicy", networkingv1.NetworkPolicies)
	})
}

func benchDefaultValidate[T scheme.Object](b *testing.B, kind string, gr scheme.GroupResource) {
	bodies := validCreates(b, kind)
	b.Run("kube", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			errs, err := DefaultValidate(kind, "ns1", bodies[i%len(bodies)])
			if err != nil || len(errs) > 0 {
				b.Fatal(err, errs)
			}
			i++
		}
	})
	b.Run("apikit", func(b *testing.B) {
		s := newApikit(b).scheme
		st := strategies.Builtin()[gr].(registry.StrategyFor[T])
		res, _ := s.Resource(gr)
		ser := codec.NewJSON(s)
		gvk := scheme.GroupVersionKind{Group: gr.Group, Version: "v1", Kind: kind}
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
			o := in.(T)
			st.PrepareForCreate(ctx, o)
			errs := st.Validate(ctx, o)
			errs = append(errs, validation.ValidateObjectMeta(o, true, res.NameValidation, validation.NewPath("metadata"))...)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			i++
		}
	})
}
