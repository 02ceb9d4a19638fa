package server

import (
	"errors"
	"fmt"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/bolt"
)

// storageCodec is the bolt codec of the example: the Go kinds of the API and
// CustomResourceDefinitions decode into their Go types, and the objects of the
// resources CRDs define, whose kinds the server learns only while it runs, decode as
// unstructured objects, as the rest handler stores them.
type storageCodec struct {
	typed *codec.JSONSerializer
}

func newStorageCodec(s *scheme.Scheme) bolt.Codec {
	withCRDs := s.Clone()
	if err := apiextensions.AddToScheme(withCRDs); err != nil {
		panic(fmt.Sprintf("widgets server: registering CustomResourceDefinition: %v", err)) // a fixed, valid registration
	}
	return storageCodec{typed: codec.NewJSON(withCRDs)}
}

func (c storageCodec) Encode(obj scheme.Object) ([]byte, error) {
	return bolt.SerializerCodec(c.typed).Encode(obj)
}

func (c storageCodec) Decode(data []byte) (scheme.Object, error) {
	obj, err := bolt.SerializerCodec(c.typed).Decode(data)
	var nre *scheme.NotRegisteredError
	if !errors.As(err, &nre) {
		return obj, err
	}
	res, err := c.typed.Decode(data, nil, &scheme.Unstructured{})
	if err != nil {
		return nil, err
	}
	return res.Object.(*scheme.Unstructured), nil
}
