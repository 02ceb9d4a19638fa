package rest_test

import (
	"encoding/json"
	"io"
	"testing"
)

func TestWatch_TableOptionsAreValidatedBeforeTheStream(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	tests := []struct {
		name, query, accept string
		wantCode            int
		wantMessage         string
	}{
		{"an unknown includeObject on a Table watch is 400", "&includeObject=All", tableJSON, 400,
			`Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`},
		{"a known includeObject on a Table watch streams", "&includeObject=None", tableJSON, 200, ""},
		{"includeObject on a watch of objects is ignored, as kube ignores it", "&includeObject=All", "application/json", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.openWatch(t, widgetsPath+"?watch=1&resourceVersion=0"+tt.query, tt.accept)
			if res.StatusCode != tt.wantCode {
				t.Fatalf("code = %d, want %d", res.StatusCode, tt.wantCode)
			}
			if tt.wantMessage == "" {
				return
			}
			var st map[string]any
			if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if st["kind"] != "Status" || st["reason"] != "BadRequest" || st["message"] != tt.wantMessage {
				t.Errorf("status = %v, want BadRequest %q", st, tt.wantMessage)
			}
		})
	}
}
