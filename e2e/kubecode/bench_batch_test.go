package kubecode

import (
	"context"
	"testing"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// BenchmarkJobDefaultValidate is BenchmarkPodDefaultValidate for Jobs, on the generated
// valid creates (kube's code accepts each but for the uid it is not given here): the decode with
// defaulting, the Job strategy's PrepareForCreate (the generated selector) and the
// validation, on each side.
func BenchmarkJobDefaultValidate(b *testing.B) {
	var bodies [][]byte
	for _, c := range Generate("Job", 26, 400) {
		if c.Invalid || c.Old != nil {
			continue
		}
		body := JSON(c.Body)
		errs, err := DefaultValidate("Job", c.Namespace, body)
		if err != nil {
			b.Fatal(err)
		}
		// DefaultValidate assigns no uid: a generated selector's one cause is
		// metadata.uid Required. Any other cause is a case kube refuses.
		if len(errs) > 1 || len(errs) == 1 && errs[0].Field != "metadata.uid" {
			continue
		}
		bodies = append(bodies, body)
	}
	b.Logf("%d valid jobs", len(bodies))
	if len(bodies) < 20 {
		b.Fatalf("only %d valid jobs", len(bodies))
	}
	b.Run("kube", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := DefaultValidate("Job", "ns1", bodies[i%len(bodies)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("apikit", func(b *testing.B) {
		s := newApikit(b).scheme
		st := strategies.Builtin()[batchv1.Jobs].(registry.StrategyFor[*batchv1.Job])
		ser := codec.NewJSON(s)
		gvk := scheme.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
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
			j := in.(*batchv1.Job)
			j.UID = "0a1b2c3d-0000-4000-8000-000000000001"
			st.PrepareForCreate(ctx, j)
			if errs := append(st.Validate(ctx, j), validation.ValidateObjectMeta(j, true, nil, validation.NewPath("metadata"))...); len(errs) > 0 {
				b.Fatal(errs)
			}
			i++
		}
	})
}
