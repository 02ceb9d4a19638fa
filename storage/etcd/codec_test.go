package etcd

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func testScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCodec_WritesCBORBehindItsSelfDescribedTagAndReadsItBack(t *testing.T) {
	c := NewCodec(testScheme(t))
	for _, tc := range []struct {
		name string
		obj  scheme.Object
	}{
		{"typed", storagetest.NewWidget("ns1", "a", map[string]string{"app": "x"}, 7)},
		{"unstructured", storagetest.NewGadget("ns1", "b", map[string]string{"app": "y"}, 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := c.Encode(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, cborPrefix) {
				t.Fatalf("encoding starts % x, want CBOR's self-described tag % x", data[:min(len(data), 4)], cborPrefix)
			}
			got, err := c.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.obj, got); diff != "" {
				t.Errorf("round trip changed the object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCodec_ReadsJSONWrittenByOtherEncoders(t *testing.T) {
	c := NewCodec(testScheme(t))
	got, err := c.Decode([]byte(`{"apiVersion":"storagetest.apikit.dev/v1","kind":"Widget","metadata":{"name":"a","namespace":"ns1"},"spec":{"size":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := got.(*storagetest.Widget)
	if !ok || w.Name != "a" || w.Spec.Size != 3 {
		t.Errorf("decoded %#v, want Widget ns1/a of size 3", got)
	}
}

func TestCodec_UnknownPrefixFails(t *testing.T) {
	c := NewCodec(testScheme(t))
	for _, data := range [][]byte{nil, []byte("garbage"), {0xd9, 0xd9}} {
		if _, err := c.Decode(data); !errors.Is(err, errUnknownEncoding) {
			t.Errorf("Decode(% x) error = %v, want errUnknownEncoding", data, err)
		}
	}
}

func TestCodec_EncodingIsDeterministicSoUnchangedUpdatesAreSkipped(t *testing.T) {
	c := NewCodec(testScheme(t))
	g := storagetest.NewGadget("ns1", "b", map[string]string{"a": "1", "b": "2", "c": "3"}, 9)
	first, err := c.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := c.Encode(scheme.DeepCopy(g))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("two encodings of equal objects differ: GuaranteedUpdate would write a no-op")
		}
	}
}
