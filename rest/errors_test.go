package rest_test

import (
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/rest"
)

func TestErrors_CarryKubeCodesReasonsAndMessages(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.MaxRequestBodyBytes = 1024 })
	s.create("taken", "blue")
	tests := []struct {
		name, method, path, ctype, body string
		code                            int
		reason, message                 string
	}{
		{"missing object is NotFound", "GET", widgetsPath + "/nope", "", "", 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"unknown resource is NotFound", "GET", "/apis/toys.example.com/v1/namespaces/default/gadgets", "", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown version is NotFound", "GET", "/apis/toys.example.com/v9/warehouses", "", "", 404, "NotFound", "the server could not find the requested resource"},
		{"duplicate create is AlreadyExists", "POST", widgetsPath, "application/json", widgetJSON("taken", "blue"), 409, "AlreadyExists", `widgets.toys.example.com "taken" already exists`},
		{"invalid object is Invalid", "POST", widgetsPath, "application/json", widgetJSON("x", "pink"), 422, "Invalid", `Widget.toys.example.com "x" is invalid: spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`},
		{"bad JSON is BadRequest", "POST", widgetsPath, "application/json", `{"kind":`, 400, "BadRequest", ""},
		{"wrong apiVersion is BadRequest", "POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1alpha1","kind":"Widget","metadata":{"name":"x"}}`, 400, "BadRequest", "the API version in the data (toys.example.com/v1alpha1) does not match the expected API version (toys.example.com/v1)"},
		{"namespace mismatch is BadRequest", "POST", widgetsPath, "application/json", widgetJSON("x", "blue", `"namespace":"other"`), 400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"},
		{"wrong method is MethodNotAllowed", "POST", widgetsPath + "/taken", "application/json", widgetJSON("taken", "blue"), 405, "MethodNotAllowed", ""},
		{"protobuf body for a kind without protobuf is UnsupportedMediaType", "POST", "/apis/toys.example.com/v1alpha1/namespaces/default/widgets", "application/vnd.kubernetes.protobuf", "x", 415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/cbor"},
		{"CBOR apply patch to /scale is UnsupportedMediaType", "PATCH", widgetsPath + "/taken/scale?fieldManager=m", "application/apply-patch+cbor", "{}", 415, "UnsupportedMediaType", ""},
		{"large body is RequestEntityTooLarge", "POST", widgetsPath, "application/json", widgetJSON("big", strings.Repeat("b", 2048)), 413, "RequestEntityTooLarge", "Request entity too large: limit is 1024"},
		{"unsupported field selector is BadRequest", "GET", widgetsPath + "?fieldSelector=spec.size%3D1", "", "", 400, "BadRequest", "field label not supported: spec.size"},
		{"bad label selector is BadRequest", "GET", widgetsPath + "?labelSelector=a%20in", "", "", 400, "BadRequest", ""},
		{"bad continue is BadRequest", "GET", widgetsPath + "?limit=1&continue=xyz", "", "", 400, "BadRequest", ""},
		{"stale update is Conflict", "PUT", widgetsPath + "/taken", "application/json", widgetJSON("taken", "green", `"resourceVersion":"999999"`), 409, "Conflict", `Operation cannot be fulfilled on widgets.toys.example.com "taken": the object has been modified; please apply your changes to the latest version and try again`},
		{"name mismatch on update is BadRequest", "PUT", widgetsPath + "/taken", "application/json", widgetJSON("other", "green"), 400, "BadRequest", "the name of the object (other) does not match the name on the URL (taken)"},
		{"unknown dryRun value is Invalid", "POST", widgetsPath + "?dryRun=Some", "application/json", widgetJSON("x", "blue"), 422, "Invalid", ""},
		{"nothing acceptable is NotAcceptable", "GET", widgetsPath + "/taken", "", "", 406, "NotAcceptable", "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor"},
		{"invalid json patch is Invalid", "PATCH", widgetsPath + "/taken", "application/json-patch+json", `[{"op":"remove","path":"/spec/nothere"}]`, 422, "Invalid", "the server rejected our request due to an error in our request"},
		{"patch of a missing object is NotFound", "PATCH", widgetsPath + "/nope", "application/merge-patch+json", `{}`, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"Exact at resourceVersion 0 is Invalid ListOptions", "GET", widgetsPath + "?resourceVersionMatch=Exact&resourceVersion=0", "", "", 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"resourceVersionMatch without resourceVersion is Invalid ListOptions", "GET", widgetsPath + "?resourceVersionMatch=NotOlderThan", "", "", 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"continue with a resourceVersion is BadRequest without storage keys", "GET", widgetsPath + "?limit=1&continue=abc&resourceVersion=5", "", "", 400, "BadRequest", "specifying resource version is not allowed when using continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.code == 406 {
				hdr = []string{"Accept", "text/html"}
			}
			r := s.do(tt.method, tt.path, tt.ctype, tt.body, hdr...)
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			m := r.json(t)
			if m["kind"] != "Status" || m["status"] != "Failure" || m["reason"] != tt.reason || m["code"] != float64(tt.code) {
				t.Errorf("status = %s, want reason %s", r.body, tt.reason)
			}
			if tt.message != "" && m["message"] != tt.message {
				t.Errorf("message = %q, want %q", m["message"], tt.message)
			}
		})
	}
}
