package standard

import (
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// Serializers returns the serializers of s in kube-apiserver's order of preference:
// application/json, application/yaml, application/vnd.kubernetes.protobuf,
// application/cbor.
func Serializers(s *scheme.Scheme) []codec.Serializer {
	return []codec.Serializer{codec.NewJSON(s), codec.NewYAML(s), protobuf.New(s), cbor.New(s)}
}
