package protobuf

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

func FuzzDecodeProtobuf(f *testing.F) {
	s := New(testScheme())
	for _, obj := range []scheme.Kinded{sampleWidget(2), sampleStatus(),
		&scheme.PartialObjectMetadataList{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			Items: []scheme.PartialObjectMetadata{{ObjectMeta: fullMeta()}}},
		&WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"}, Items: []Widget{listItem(1)}},
	} {
		f.Add(encode(f, s, obj))
	}
	var frame bytes.Buffer
	_ = s.EncodeEvent(&frame, watch.Event{Type: watch.Added, Object: sampleWidget(1)})
	f.Add(frame.Bytes()[4:])
	f.Add([]byte("k8s\x00\x12\xff\xff\xff\xff\x0f"))
	f.Add([]byte("k8s\x00\x0b\x0c"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := s.Decode(data, nil, nil)
		if err == nil {
			// What decodes must encode again.
			var buf bytes.Buffer
			if err := s.Encode(&buf, res.Object); err != nil {
				t.Fatalf("re-encode of decoded %T: %v", res.Object, err)
			}
		}
		_, _ = s.Decode(data, nil, &scheme.Unstructured{})
		_, _ = s.Decode(data, nil, &scheme.UnstructuredList{})
		_, _ = s.Decode(data, &scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}, nil)
		if len(data) > 4 {
			_, _ = s.DecodeEvent(data[4:], nil)
		}
		_, _ = NewFrameReader(bytes.NewReader(data), 1<<16).ReadFrame()
	})
}
