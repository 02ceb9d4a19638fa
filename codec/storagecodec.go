package codec

import (
	"bytes"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
)

// StorageCodec turns a Serializer, such as NewJSON(s) for a scheme s that knows every
// stored kind, into the storage.Codec a durable backend takes (storage/bolt,
// storage/etcd): Encode gives an object's bytes without the newline JSON ends with,
// Decode reads the kind from apiVersion and kind inside the bytes. It lives here, not
// in package storage, so that storage (and what imports it) needs no serializer.
type StorageCodec struct{ Serializer Serializer }

// Encode returns the bytes of obj; it does not modify or keep obj.
func (c StorageCodec) Encode(obj scheme.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.Serializer.Encode(&buf, obj); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Decode returns a new object read from data, which it does not keep.
func (c StorageCodec) Decode(data []byte) (scheme.Object, error) {
	res, err := c.Serializer.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	obj, ok := res.Object.(scheme.Object)
	if !ok {
		return nil, fmt.Errorf("decoded %s is a %T, not a scheme.Object", res.GVK, res.Object)
	}
	return obj, nil
}
