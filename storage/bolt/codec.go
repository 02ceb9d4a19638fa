package bolt

import (
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/storage"
)

// Codec turns the objects a Store writes into the bytes its file keeps, and back when
// the Store starts; it is storage.Codec, which storage/etcd takes too. A Store sets each
// decoded object's resourceVersion from the file's record of its last write.
type Codec = storage.Codec

// SerializerCodec adapts a codec.Serializer, such as codec.NewJSON(s) for a scheme s that
// knows every stored kind, to a Codec; see codec.StorageCodec.
func SerializerCodec(s codec.Serializer) Codec { return codec.StorageCodec{Serializer: s} }
