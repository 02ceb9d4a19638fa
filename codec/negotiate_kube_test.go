package codec_test

import (
	"errors"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// TestNegotiateResponse_AgreesWithKubeOnWhatTheDifferentialFound holds one Accept
// header of each kind on which e2e's TestNegotiationDiff found apikit and
// kube-apiserver apart; the expected outcomes are kube-apiserver's.
func TestNegotiateResponse_AgreesWithKubeOnWhatTheDifferentialFound(t *testing.T) {
	s := scheme.New()
	codecs := codec.NewCodecs(s, protobuf.New(s), cbor.New(s))
	allowAll := func(string) bool { return true }
	tests := []struct {
		name, accept string
		stream       bool
		want         string // media type and as, or "406"
	}{
		{"a lone * is */*", "text/html, *", false, "application/json"},
		{"*/ is */*", "*/", false, "application/json"},
		{"stream=watch on a get is served", "application/json;stream=watch", false, "application/json"},
		{"an empty stream means nothing", "application/cbor;stream=", true, "application/cbor"},
		{"stream=watch needs a stream framing", "application/yaml;stream=watch, application/cbor", false, "application/cbor"},
		{"g and v without as ask for no target anyone has", "application/json;g=meta.k8s.io;v=v1, application/yaml", false, "application/yaml"},
		{"v alone is skipped too", "application/json;v=v1beta1", true, "406"},
		{"another server version is skipped", "application/json;sv=v2, application/cbor;sv=v1", false, "application/cbor"},
		{"parameters do not rank a clause first", "application/json, application/json;as=Table;v=v1;g=meta.k8s.io", false, "application/json"},
		{"clauses of one q go in the order written", "application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io", false, "application/yaml"},
		{"a higher q wins over parameters", "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/json", false, "application/json"},
		{"a target written first is served", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json", false, "application/json as Table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codecs.NegotiateResponse(tt.accept, codec.ResponseOptions{AllowAs: allowAll, Stream: tt.stream})
			got := out.MediaType
			if out.As != "" {
				got += " as " + out.As
			}
			if errors.Is(err, codec.ErrNotAcceptable) {
				got = "406"
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("NegotiateResponse(%q) = %s, want %s", tt.accept, got, tt.want)
			}
		})
	}
}
