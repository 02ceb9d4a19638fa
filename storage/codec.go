package storage

import (
	"bytes"
	"fmt"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Codec turns the objects a durable backend writes into the bytes it keeps, and back.
// Decode finds the kind from apiVersion and kind inside the bytes. The resourceVersion
// inside the bytes is not used: backends set each decoded object's resourceVersion from
// their own record of its last write.
type Codec interface {
	// Encode returns the bytes of obj; it must not modify or keep obj.
	Encode(obj scheme.Object) ([]byte, error)
	// Decode returns a new object read from data, which it must not keep.
	Decode(data []byte) (scheme.Object, error)
}

// SerializerCodec adapts a codec.Serializer, such as codec.NewJSON(s) for a scheme s that
// knows every stored kind, to a Codec. The newline JSON ends with is not stored.
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
