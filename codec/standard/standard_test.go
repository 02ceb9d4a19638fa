package standard_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/scheme"
)

func TestSerializers_AreKubeApiserversInItsOrderOfPreference(t *testing.T) {
	var got []string
	for _, s := range standard.Serializers(scheme.New()) {
		got = append(got, s.MediaType())
	}
	want := []string{codec.MediaTypeJSON, codec.MediaTypeYAML, codec.MediaTypeProtobuf, codec.MediaTypeCBOR}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("media types (-want +got):\n%s", diff)
	}
}

func TestSerializers_FrameWatchesInEveryMediaTypeButYAML(t *testing.T) {
	got := map[string]string{}
	for _, s := range standard.Serializers(scheme.New()) {
		if f, ok := s.(codec.EventFramer); ok {
			got[s.MediaType()] = f.StreamContentType()
		}
	}
	want := map[string]string{
		codec.MediaTypeJSON:     "application/json",
		codec.MediaTypeProtobuf: "application/vnd.kubernetes.protobuf;stream=watch",
		codec.MediaTypeCBOR:     "application/cbor-seq",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream content types (-want +got):\n%s", diff)
	}
}
