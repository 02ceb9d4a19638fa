package storage

import "github.com/apikit-dev/apikit/scheme"

// Codec turns the objects a durable backend writes into the bytes it keeps, and back.
// Decode finds the kind from apiVersion and kind inside the bytes. The resourceVersion
// inside the bytes is not used: backends set each decoded object's resourceVersion from
// their own record of its last write. codec.StorageCodec makes one of a serializer.
type Codec interface {
	// Encode returns the bytes of obj; it must not modify or keep obj.
	Encode(obj scheme.Object) ([]byte, error)
	// Decode returns a new object read from data, which it must not keep.
	Decode(data []byte) (scheme.Object, error)
}
