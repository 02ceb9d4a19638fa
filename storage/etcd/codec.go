package etcd

import (
	"bytes"
	"errors"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Codec turns the objects a Store writes into the bytes etcd keeps, and back: it is
// storage.Codec, so one value serves storage/bolt too. A Store clears the
// resourceVersion before encoding and sets each decoded object's from etcd's revisions.
type Codec = storage.Codec

// The prefixes that tell which encoding a stored value is in, as kube-apiserver's
// storage tells them apart: CBOR's self-described tag, the protobuf envelope's magic.
var (
	cborPrefix     = []byte{0xd9, 0xd9, 0xf7}
	protobufPrefix = []byte("k8s\x00")
)

// NewCodec returns the Codec of a scheme that knows every stored kind. It writes CBOR
// (compact, and able to carry typed and unstructured objects alike) behind its
// self-described tag, and reads any value by its prefix: CBOR, the protobuf envelope
// ("k8s\x00") or JSON ("{"), so values written by another encoding, or by a later
// version that changes the default, stay readable.
func NewCodec(s *scheme.Scheme) Codec {
	return prefixCodec{cbor: cbor.New(s), protobuf: protobuf.New(s), json: codec.NewJSON(s)}
}

type prefixCodec struct {
	cbor, protobuf, json codec.Serializer
}

func (c prefixCodec) Encode(obj scheme.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.cbor.Encode(&buf, obj); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errUnknownEncoding is the error of a stored value in none of the encodings NewCodec
// reads.
var errUnknownEncoding = errors.New("stored value has no known encoding prefix")

func (c prefixCodec) Decode(data []byte) (scheme.Object, error) {
	var s codec.Serializer
	switch {
	case bytes.HasPrefix(data, cborPrefix):
		s = c.cbor
	case bytes.HasPrefix(data, protobufPrefix):
		s = c.protobuf
	case len(bytes.TrimLeft(data, " \t\r\n")) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '{':
		s = c.json
	default:
		return nil, errUnknownEncoding
	}
	return codec.StorageCodec{Serializer: s}.Decode(data)
}
