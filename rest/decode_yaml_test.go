package rest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/rest"
	"sigs.k8s.io/yaml"
)

// aliasedWidgetYAML is a Widget whose annotations alias one pad of padBytes n times,
// issue 23's body at a small scale: its JSON is some n*padBytes bytes.
func aliasedWidgetYAML(name string, padBytes, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: %s\n  annotations:\n    a0: &pad %s\n", name, strings.Repeat("x", padBytes))
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "    a%d: *pad\n", i)
	}
	b.WriteString("spec:\n  color: blue\n")
	return b.String()
}

// TestWrite_YAMLAliasesCountAgainstTheBodyLimit: the body limit is checked on what a
// YAML body stands for, not only on its bytes; over it is kube's 413 for a body over
// the limit, for a create, an update and an apply, with an audit log that records the
// body too.
func TestWrite_YAMLAliasesCountAgainstTheBodyLimit(t *testing.T) {
	const limit = 64 << 10
	for _, audited := range []bool{false, true} {
		s := newServer(t, func(o *rest.Options) {
			o.MaxRequestBodyBytes = limit
			o.MaxObjectBytes = 1 << 20
			if audited {
				o.Audit = &audit.Config{Policy: policyAt(audit.LevelRequestResponse), Sink: audit.NewWriterSink(discardWriter{})}
			}
		})
		s.create("taken", "blue")
		tests := []struct {
			name, method, path, ctype, body string
			code                            int
		}{
			{"create within the limit", "POST", widgetsPath, "application/yaml", aliasedWidgetYAML("small", 4<<10, 8), 201},
			{"create past the limit", "POST", widgetsPath, "application/yaml", aliasedWidgetYAML("big", 4<<10, 40), 413},
			{"update past the limit", "PUT", widgetsPath + "/taken", "application/yaml", aliasedWidgetYAML("taken", 4<<10, 40), 413},
			{"apply within the limit", "PATCH", widgetsPath + "/applied?fieldManager=m", "application/apply-patch+yaml", aliasedWidgetYAML("applied", 4<<10, 8), 201},
			{"apply past the limit", "PATCH", widgetsPath + "/applied?fieldManager=m", "application/apply-patch+yaml", aliasedWidgetYAML("applied", 4<<10, 40), 413},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/audited=%v", tt.name, audited), func(t *testing.T) {
				if len(tt.body) > limit/4 {
					t.Fatalf("the body is %d bytes: the test is of what it stands for", len(tt.body))
				}
				res := s.do(tt.method, tt.path, tt.ctype, tt.body)
				if res.code != tt.code {
					t.Fatalf("%s: %d %s, want %d", tt.name, res.code, res.body, tt.code)
				}
				if tt.code != http.StatusRequestEntityTooLarge {
					return
				}
				st := res.json(t)
				if st["reason"] != "RequestEntityTooLarge" || st["message"] != fmt.Sprintf("Request entity too large: limit is %d", limit) {
					t.Errorf("status %v", st)
				}
			})
		}
		if res := s.do("GET", widgetsPath+"/big", "", ""); res.code != http.StatusNotFound {
			t.Errorf("the refused object was stored: %d", res.code)
		}
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestGet_YAMLOfADeepObjectStaysWithinAMultipleOfItsJSON is issue 23's deep object at a
// small scale: go-yaml indents two spaces a level, so a custom resource 2,000 levels
// deep (50 KB of JSON with its managedFields) was 12 MB of YAML; it is now written
// within four times its JSON (51 KB), and reads back as the same object.
func TestGet_YAMLOfADeepObjectStaysWithinAMultipleOfItsJSON(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`))
	})
	deep := strings.Repeat(`{"f:a":`, 2000) + `{}` + strings.Repeat(`}`, 2000)
	if res := s.do("POST", crdPath, "application/json", crdWidgetJSON("deep", `{"tree":`+deep+`}`)); res.code != http.StatusCreated {
		t.Fatalf("create: %d %s", res.code, res.body)
	}
	asJSON := s.do("GET", crdPath+"/deep", "", "")
	asYAML := s.do("GET", crdPath+"/deep", "", "", "Accept", "application/yaml")
	if asJSON.code != http.StatusOK || asYAML.code != http.StatusOK {
		t.Fatalf("get: %d, %d %.200s", asJSON.code, asYAML.code, asYAML.body)
	}
	t.Logf("%d bytes of JSON, %d bytes of YAML", len(asJSON.body), len(asYAML.body))
	if limit := 4*len(asJSON.body) + 64<<10; len(asYAML.body) > limit {
		t.Errorf("%d bytes of YAML for %d bytes of JSON, over %d", len(asYAML.body), len(asJSON.body), limit)
	}
	back, err := yaml.YAMLToJSON(asYAML.body)
	if err != nil {
		t.Fatalf("the YAML does not read back: %v", err)
	}
	want, _ := yaml.YAMLToJSON(asJSON.body)
	if !bytes.Equal(back, want) {
		t.Errorf("the YAML reads back as %.100s..., want %.100s...", back, want)
	}
}

// TestWrite_AliasedYAMLOverTheObjectLimitIsRefusedBeforeAnyWork: a YAML body far under
// a quarter of the object limit, whose aliases make it stand for an object over the
// limit, is measured like a large body and refused (kube's 500 for an object etcd
// refuses) before admission and managedFields tracking, which cost seconds for an object
// of many entries; the same object sent without aliases is refused there too.
func TestWrite_AliasedYAMLOverTheObjectLimitIsRefusedBeforeAnyWork(t *testing.T) {
	const objectLimit = 64 << 10
	admitted := &admissionCounter{}
	s := newServer(t, func(o *rest.Options) {
		o.MaxObjectBytes = objectLimit
		o.MutatingAdmission = append(o.MutatingAdmission, admitted)
	})
	s.create("taken", "blue")
	for _, tt := range []struct{ name, method, path, ctype, object string }{
		{"create", "POST", widgetsPath, "application/yaml", "big"},
		{"update", "PUT", widgetsPath + "/taken", "application/yaml", "taken"},
		{"apply", "PATCH", widgetsPath + "/big?fieldManager=m", "application/apply-patch+yaml", "big"},
	} {
		aliased := aliasedWidgetYAML(tt.object, 4<<10, 32) // about 130 KB of JSON
		if len(aliased) > objectLimit/4 {
			t.Fatalf("the body is %d bytes: the test is of what it stands for", len(aliased))
		}
		before := admitted.count()
		res := s.do(tt.method, tt.path, tt.ctype, aliased)
		if m := res.json(t); res.code != http.StatusInternalServerError || m["message"] != "etcdserver: request is too large" {
			t.Errorf("%s: %d %.300s, want kube's 500 for an object etcd refuses", tt.name, res.code, res.body)
		}
		if n := admitted.count() - before; n != 0 {
			t.Errorf("%s: the aliased body reached admission %d times, want it refused before any work", tt.name, n)
		}
	}
}
