package cbor

import (
	"io"

	"github.com/apikit-dev/apikit/codec"
)

var _ codec.ListStreamer = (*Serializer)(nil)

// EncodeList writes a list element by element, byte for byte what Encode writes for the
// whole list (see [codec.ListStreamer]): the definite-length head of the array under
// "items" ("rows" for a Table; its key a byte string, as Kubernetes writes every
// string) counts the elements before they are written, so
// nothing but one element's encoding is held.
func (s *Serializer) EncodeList(w io.Writer, src codec.ListSource) error {
	field := codec.ArrayField(src.List)
	return codec.EncodeArrayList(s, w, src, codec.ArrayFraming{
		Key:  append(appendHead(nil, majorBytes, uint64(len(field))), field...),
		Head: func(b []byte, n int) []byte { return appendHead(b, majorArray, uint64(n)) },
	})
}
