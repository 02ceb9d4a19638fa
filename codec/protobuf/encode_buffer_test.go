package protobuf

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

// plainWriter hides a buffer's type, so Encode takes its path for other writers.
type plainWriter struct {
	io.Writer
	writes int
}

func (w *plainWriter) Write(p []byte) (int, error) { w.writes++; return w.Writer.Write(p) }

func TestEncode_BufferAndOtherWritersGetTheSameBytes(t *testing.T) {
	tm := scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	big := &scheme.PartialObjectMetadataList{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
	for i := range 6000 { // over the small-buffer size class
		big.Items = append(big.Items, scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: scheme.ObjectMeta{
			Name: fmt.Sprintf("item-%05d", i), Namespace: "default", CreationTimestamp: t0,
			Labels: map[string]string{"app": "demo", "tier": "backend", "z": "last", "a": "first"},
		}})
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"small object", &scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: scheme.ObjectMeta{Name: "one"}}},
		{"large list", big},
	}
	ser := New(testScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("already here")
			direct := bytes.NewBuffer(bytes.Clone(prefix))
			if err := ser.Encode(direct, tt.obj); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(direct.Bytes(), prefix) {
				t.Fatalf("Encode into a bytes.Buffer overwrote what it held")
			}
			want := direct.Bytes()[len(prefix):]
			// Twice: the second encode starts from the size hint of the first.
			for i := range 2 {
				var out bytes.Buffer
				w := &plainWriter{Writer: &out}
				if err := ser.Encode(w, tt.obj); err != nil {
					t.Fatal(err)
				}
				if w.writes != 1 {
					t.Errorf("encode %d: %d writes, want one", i, w.writes)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("encode %d: writer got %d bytes that differ from the buffer's %d", i, out.Len(), len(want))
				}
			}
		})
	}
}

func TestDecode_ObjectMetaStringsSurviveTheInputBeingReused(t *testing.T) {
	in := &scheme.PartialObjectMetadata{
		TypeMeta:   scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: scheme.ObjectMeta{Name: "n", Namespace: "ns", UID: "u", Labels: map[string]string{"k": "v"}, Annotations: map[string]string{"a": "b"}},
	}
	var buf bytes.Buffer
	ser := New(testScheme())
	if err := ser.Encode(&buf, in); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	res, err := ser.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data { // the decoded strings must not alias the input
		data[i] = 'X'
	}
	got := res.Object.(*scheme.PartialObjectMetadata).ObjectMeta
	if got.Name != "n" || got.Namespace != "ns" || got.UID != "u" || got.Labels["k"] != "v" || got.Annotations["a"] != "b" {
		t.Errorf("decoded metadata changed with its input: %+v", got)
	}
}
