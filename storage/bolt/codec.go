package bolt

import (
	"bytes"
	"fmt"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Codec turns the objects a Store writes into the bytes its file keeps, and back when
// the Store starts; it is storage.Codec, which storage/etcd takes too. A Store sets each
// decoded object's resourceVersion from the file's record of its last write.
type Codec = storage.Codec

// SerializerCodec adapts a codec.Serializer, such as codec.NewJSON(s) for a scheme s that
// knows every stored kind, to a Codec.
func SerializerCodec(s codec.Serializer) Codec { return serializerCodec{s} }

type serializerCodec struct{ s codec.Serializer }

func (c serializerCodec) Encode(obj scheme.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.s.Encode(&buf, obj); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (c serializerCodec) Decode(data []byte) (scheme.Object, error) {
	res, err := c.s.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	obj, ok := res.Object.(scheme.Object)
	if !ok {
		return nil, fmt.Errorf("decoded %s is a %T, not a scheme.Object", res.GVK, res.Object)
	}
	return obj, nil
}
