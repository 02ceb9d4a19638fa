package rest_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestUpdate_ABodyUIDIsAPreconditionAsKube holds kube-apiserver's update handler, which
// makes a PUT body's metadata.uid a precondition of the write: another uid than the
// stored one is 409 Conflict (not a 422 for an immutable field), while a patch that
// changes the uid stays a 422.
func TestUpdate_ABodyUIDIsAPreconditionAsKube(t *testing.T) {
	s := newServer(t, nil)
	created := s.create("w", "blue")
	uid := get(created, "metadata", "uid").(string)
	tests := []struct {
		name, method, ctype, body string
		wantCode                  int
		wantMessage               string
	}{
		{"a PUT with another uid", "PUT", "application/json", widgetJSON("w", "green", `"uid":"not-the-stored-uid"`), http.StatusConflict,
			`Operation cannot be fulfilled on widgets.toys.example.com "w": Precondition failed: UID in precondition: not-the-stored-uid, UID in object meta: ` + uid},
		{"a PUT with the stored uid", "PUT", "application/json", widgetJSON("w", "green", `"uid":"`+uid+`"`), http.StatusOK, ""},
		{"a PUT without a uid", "PUT", "application/json", widgetJSON("w", "red"), http.StatusOK, ""},
		{"a patch of the uid", "PATCH", "application/merge-patch+json", `{"metadata":{"uid":"other"}}`, http.StatusUnprocessableEntity, "field is immutable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, widgetsPath+"/w", tt.ctype, tt.body)
			if r.code != tt.wantCode {
				t.Fatalf("code %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantMessage != "" {
				if msg, _ := r.json(t)["message"].(string); !strings.Contains(msg, tt.wantMessage) {
					t.Errorf("message %q, want it to hold %q", msg, tt.wantMessage)
				}
			}
		})
	}
}
