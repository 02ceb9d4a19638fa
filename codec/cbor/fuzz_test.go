package cbor

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// FuzzDecodeCBOR feeds arbitrary bytes to every decode path: typed, unstructured, a
// list, by kind from the scheme, and the watch stream decoder. None may panic; what
// decodes must encode again and decode to the same bytes.
func FuzzDecodeCBOR(f *testing.F) {
	w := widget(3)
	var buf bytes.Buffer
	s := New(testapi.NewScheme())
	_ = s.Encode(&buf, w)
	f.Add(buf.Bytes())
	f.Add(widgetDoc("spec", doc("color", "red", "color", "x", "nope", "y")))
	f.Add([]byte{0xd9, 0xd9, 0xf7, 0x9b, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{0xbf, 0x41, 0x61, 0x9f, 0xff, 0xff})
	f.Add(AppendEvent(nil, watch.Added, buf.Bytes()))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, into := range []scheme.Kinded{nil, &toys.WidgetV1{}, &scheme.Unstructured{}, &scheme.UnstructuredList{}} {
			res, err := s.Decode(data, nil, into)
			if err != nil {
				continue
			}
			var out bytes.Buffer
			if err := s.Encode(&out, res.Object); err != nil {
				continue // e.g. a float that decoded but is out of range for its field
			}
			if _, err := s.Decode(out.Bytes(), nil, into); err != nil {
				t.Fatalf("into %T: re-decoding our own encoding failed: %v\ninput %x\nencoded %x", into, err, data, out.Bytes())
			}
		}
		dec := NewEventDecoder(bytes.NewReader(data), s)
		dec.MaxEventSize = 1 << 16
		for i := 0; i < 4; i++ {
			if _, err := dec.Decode(nil); err != nil {
				break
			}
		}
	})
}
