// Package standard is the set of serializers a Kubernetes API server speaks: JSON,
// YAML, protobuf and CBOR, in kube-apiserver's order of preference. It exists so that
// the REST layer can offer them by default without knowing any of them: rest imports
// this package, never codec/protobuf or codec/cbor. A server that speaks another media
// type passes its own list, usually this one plus its serializer:
//
//	opts.Serializers = append(standard.Serializers(s), myformat.New(s))
package standard
