package e2e

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	k8sbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/apikit-dev/apikit/builtin"
	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// TestProtobufBatchInterop_RandomObjectsAsApimachinery fills k8s.io/api's Jobs,
// CronJobs and their lists at random and holds apikit's protobuf (registered by
// builtin.AddToScheme from the struct tags) to k8s.io/api's gogo-generated Marshal:
// apikit encodes the same object to the same bytes, and reads apimachinery's bytes to
// the same object.
func TestProtobufBatchInterop_RandomObjectsAsApimachinery(t *testing.T) {
	ks := runtime.NewScheme()
	if err := k8sbatchv1.AddToScheme(ks); err != nil {
		t.Fatal(err)
	}
	kser := kproto.NewSerializer(ks, ks)
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	ours := protobuf.New(s)
	for kind, pair := range map[string]builtinProtoKind{
		"Job":         {func() runtime.Object { return &k8sbatchv1.Job{} }, func() scheme.Kinded { return &batchv1.Job{} }},
		"JobList":     {func() runtime.Object { return &k8sbatchv1.JobList{} }, func() scheme.Kinded { return &batchv1.JobList{} }},
		"CronJob":     {func() runtime.Object { return &k8sbatchv1.CronJob{} }, func() scheme.Kinded { return &batchv1.CronJob{} }},
		"CronJobList": {func() runtime.Object { return &k8sbatchv1.CronJobList{} }, func() scheme.Kinded { return &batchv1.CronJobList{} }},
	} {
		t.Run(kind, func(t *testing.T) {
			sizes := 0
			for seed := int64(0); seed < builtinInteropSeeds; seed++ {
				k := pair.k8s()
				interopFiller(seed).Fill(k)
				k.GetObjectKind().SetGroupVersionKind(k8sbatchv1.SchemeGroupVersion.WithKind(kind))
				want := k8sProtoEncode(t, kser, k)
				sizes += len(want)
				o := pair.ours()
				toApikit(t, k, o)
				var buf bytes.Buffer
				if err := ours.Encode(&buf, o); err != nil {
					t.Fatalf("seed %d: apikit encode: %v", seed, err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("seed %d: bytes differ at %d of %d", seed, firstDiff(buf.Bytes(), want), len(want))
				}
				kback, _, err := kser.Decode(want, nil, nil)
				if err != nil {
					t.Fatalf("seed %d: apimachinery decode: %v", seed, err)
				}
				res, err := ours.Decode(want, nil, nil)
				if err != nil {
					t.Fatalf("seed %d: apikit decode: %v", seed, err)
				}
				if w, g := jsonOf(t, kback), jsonOf(t, res.Object); !reflect.DeepEqual(w, g) {
					t.Fatalf("seed %d: apikit's decode differs (-apimachinery +apikit):\n%s", seed, cmp.Diff(w, g))
				}
			}
			t.Logf("%d objects, %d bytes of protobuf on average", builtinInteropSeeds, sizes/builtinInteropSeeds)
		})
	}
}
