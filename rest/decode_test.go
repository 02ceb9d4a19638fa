package rest_test

import (
	"strings"
	"testing"
)

func TestCreate_UndecodableBodiesNameTheDecoderErrorAsKube(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, contentType, body string
		wantCause, wantSummary  string
	}{
		{"JSON cut short", "application/json", `{"kind":`, "unexpected end of JSON input", `({"kind":)`},
		{"YAML that does not parse", "application/yaml", "a: [\n", "error converting YAML to JSON: yaml: line 1: did not find expected node content", "(613a205b0a)"},
		{"YAML that is not a map", "application/yaml", "- 1\n", "cannot unmarshal array", "(2d20310a)"},
		{"CBOR that is not a map", "application/cbor", "\xff\x00garbage", "cbor: ", "(ff0067617262616765)"},
		{"protobuf without the k8s prefix", "application/vnd.kubernetes.protobuf", "garbage", "protobuf prefix", "(67617262616765)"},
		{"a long body is summarized after 30 bytes", "application/yaml", "x: [" + strings.Repeat("y", 40), "error converting YAML to JSON", "(783a205b" + strings.Repeat("79", 26) + " ...)"},
	}
	const prefix = "the object provided is unrecognized (must be of type Widget): "
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("POST", widgetsPath, tt.contentType, tt.body)
			st := r.json(t)
			if r.code != 400 || st["reason"] != "BadRequest" {
				t.Fatalf("got %d %s, want 400 BadRequest", r.code, r.body)
			}
			msg, _ := st["message"].(string)
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.wantCause) || !strings.HasSuffix(msg, " "+tt.wantSummary) {
				t.Errorf("message = %q, want %q, the cause %q and the summary %q", msg, prefix, tt.wantCause, tt.wantSummary)
			}
		})
	}
}
