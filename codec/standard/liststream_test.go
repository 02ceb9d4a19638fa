package standard_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// generatedWidgets returns n widgets whose sizes and optional fields vary with a
// seeded generator, so that item encodings differ in length and shape.
func generatedWidgets(seed uint64, n int) []toys.WidgetV1 {
	rnd := rand.New(rand.NewPCG(seed, 1))
	out := make([]toys.WidgetV1, n)
	for i := range out {
		w := &out[i]
		w.APIVersion, w.Kind = testapi.Group+"/v1", "Widget"
		w.Name = fmt.Sprintf("w-%04d", i)
		w.Namespace = "ns"
		w.UID = scheme.UID(fmt.Sprintf("uid-%d", rnd.Uint64()))
		w.ResourceVersion = fmt.Sprint(rnd.IntN(1 << 20))
		if rnd.IntN(2) == 0 {
			w.Labels = map[string]string{"shard": fmt.Sprint(i % 7), "q\"uote": "<&>"}
		}
		w.Annotations = map[string]string{"pad": strings.Repeat("é", rnd.IntN(300))}
		w.Spec.Color = []string{"red", "green", "blue"}[rnd.IntN(3)]
		if rnd.IntN(3) > 0 {
			r := rnd.Int32N(100)
			w.Spec.Replicas = &r
		}
		for p := range rnd.IntN(5) {
			w.Spec.Parts = append(w.Spec.Parts, toys.WidgetPart{Name: fmt.Sprintf("part-%d", p)})
		}
		w.Status.Phase = []string{"", "Ready", "Pending"}[rnd.IntN(3)]
	}
	return out
}

// listCase is one list to stream: the whole list (to encode with Encode), the list
// Hold fills, and its length.
type listCase struct {
	name  string
	whole scheme.Kinded
	src   codec.ListSource
}

func listCases(t *testing.T, n int) []listCase {
	t.Helper()
	remaining := int64(12)
	meta := scheme.ListMeta{ResourceVersion: "42", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: &remaining}
	widgets := generatedWidgets(uint64(n), n)

	typedTM := scheme.TypeMeta{APIVersion: testapi.Group + "/v1", Kind: "WidgetList"}
	typed := &toys.WidgetListV1{TypeMeta: typedTM, ListMeta: meta, Items: widgets}
	typedOut := &toys.WidgetListV1{TypeMeta: typedTM, ListMeta: meta}

	unstructured := &scheme.UnstructuredList{Object: map[string]any{
		"apiVersion": testapi.Group + "/v1", "kind": "WidgetList",
		"metadata": map[string]any{"resourceVersion": "42", "continue": meta.Continue, "remainingItemCount": remaining},
	}}
	for i := range widgets {
		b, err := codec.Marshal(&widgets[i])
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if _, err := codec.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		unstructured.Items = append(unstructured.Items, scheme.Unstructured{Object: m})
	}
	unstructuredOut := &scheme.UnstructuredList{Object: unstructured.Object}

	partialTM := scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: "PartialObjectMetadataList"}
	partial := &scheme.PartialObjectMetadataList{TypeMeta: partialTM, ListMeta: meta, Items: []scheme.PartialObjectMetadata{}}
	for i := range widgets {
		partial.Items = append(partial.Items, scheme.PartialObjectMetadata{
			TypeMeta:   scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: "PartialObjectMetadata"},
			ObjectMeta: widgets[i].ObjectMeta,
		})
	}
	partialOut := &scheme.PartialObjectMetadataList{TypeMeta: partialTM, ListMeta: meta}

	hold := func(set func(i int)) func(i int) error {
		return func(i int) error { set(i); return nil }
	}
	return []listCase{
		{"typed list", typed, codec.ListSource{List: typedOut, Len: n, Hold: hold(func(i int) {
			typedOut.Items = []toys.WidgetV1{}
			if i >= 0 {
				typedOut.Items = append(typedOut.Items, widgets[i])
			}
		})}},
		{"unstructured list", unstructured, codec.ListSource{List: unstructuredOut, Len: n, Hold: hold(func(i int) {
			unstructuredOut.Items = []scheme.Unstructured{}
			if i >= 0 {
				unstructuredOut.Items = append(unstructuredOut.Items, unstructured.Items[i])
			}
		})}},
		{"PartialObjectMetadataList", partial, codec.ListSource{List: partialOut, Len: n, Hold: hold(func(i int) {
			partialOut.Items = []scheme.PartialObjectMetadata{}
			if i >= 0 {
				partialOut.Items = append(partialOut.Items, partial.Items[i])
			}
		})}},
	}
}

// writeRecorder records the largest single Write.
type writeRecorder struct {
	bytes.Buffer
	largest int
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

func TestEncodeList_WritesWhatEncodeWritesForTheWholeList(t *testing.T) {
	s := testapi.NewScheme()
	for _, n := range []int{0, 1, 2, 3, 130, 1500} {
		for _, ser := range standard.Serializers(s) {
			ls, ok := ser.(codec.ListStreamer)
			if !ok {
				continue
			}
			for _, c := range listCases(t, n) {
				t.Run(fmt.Sprintf("%s/%s/%d items", ser.MediaType(), c.name, n), func(t *testing.T) {
					var whole bytes.Buffer
					if err := ser.Encode(&whole, c.whole); err != nil {
						t.Fatalf("Encode: %v", err)
					}
					var streamed writeRecorder
					if err := ls.EncodeList(&streamed, c.src); err != nil {
						t.Fatalf("EncodeList: %v", err)
					}
					if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
						at := 0
						for at < min(whole.Len(), streamed.Len()) && whole.Bytes()[at] == streamed.Bytes()[at] {
							at++
						}
						t.Fatalf("streamed %d bytes, Encode wrote %d; first difference at %d:\nstreamed ...%q\nwhole    ...%q",
							streamed.Len(), whole.Len(), at, excerptAt(streamed.Bytes(), at), excerptAt(whole.Bytes(), at))
					}
					// Bounded: no write holds more than one item's encoding (a widget
					// here is under 2 KiB), but for the items protobuf keeps from sizing
					// the list (256 KiB).
					limit := 4 << 10
					if ser.MediaType() == codec.MediaTypeProtobuf {
						limit += 256 << 10
					}
					if streamed.largest > max(limit, whole.Len()/2) {
						t.Errorf("largest write %d bytes of %d: the list was not written item by item", streamed.largest, whole.Len())
					}
				})
			}
		}
	}
}

func excerptAt(b []byte, at int) []byte { return b[max(0, at-40):min(len(b), at+40)] }

// failingAt fails Hold for one item, as a conversion of that item would.
func TestEncodeList_ReturnsTheErrorOfAnItem(t *testing.T) {
	s := testapi.NewScheme()
	errItem := errors.New("item 2 cannot be converted")
	for _, ser := range standard.Serializers(s) {
		ls, ok := ser.(codec.ListStreamer)
		if !ok {
			continue
		}
		c := listCases(t, 5)[0]
		hold := c.src.Hold
		c.src.Hold = func(i int) error {
			if i == 2 {
				return errItem
			}
			return hold(i)
		}
		t.Run(ser.MediaType(), func(t *testing.T) {
			if err := ls.EncodeList(&bytes.Buffer{}, c.src); !errors.Is(err, errItem) {
				t.Errorf("EncodeList = %v, want %v", err, errItem)
			}
		})
	}
}
