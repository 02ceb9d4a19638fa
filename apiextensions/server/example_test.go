package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A server starts the CRD server over its storage, in place of rest.New, and applies
// the CRD manifests it ships (apiextensions.Load reads them from files): Apply returns
// once every one is established, so their resources are served from the next request.
// Applying a changed manifest later updates the stored CRD the same way.
func ExampleHandler_Apply() {
	crds, err := apiextensions.Decode([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.tools.example.com
spec:
  group: tools.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, enum: [small, large], default: small}
`))
	if err != nil {
		log.Fatal(err)
	}
	store := memory.New(memory.Options{})
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel() // would stop following the CRDs too
	h, err := crdserver.Start(ctx, crdserver.Options{
		Scheme:  scheme.New(), // the host's own kinds
		Storage: store,
		REST:    rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	if err := h.Apply(ctx, crds...); err != nil {
		log.Fatal(err)
	}

	for _, g := range []struct{ name, spec string }{{"g1", `{}`}, {"g2", `{"size":"huge"}`}} {
		name, spec := g.name, g.spec
		req := httptest.NewRequest("POST", "/apis/tools.example.com/v1/namespaces/default/gizmos",
			strings.NewReader(`{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"`+name+`"},"spec":`+spec+`}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got struct {
			Spec    struct{ Size string }
			Message string
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			log.Fatal(err)
		}
		if rec.Code == http.StatusCreated {
			fmt.Println(name, rec.Code, "size", got.Spec.Size)
		} else {
			fmt.Println(name, rec.Code, got.Message)
		}
	}
	// Output:
	// g1 201 size small
	// g2 422 Gizmo.tools.example.com "g2" is invalid: spec.size: Unsupported value: "huge": supported values: "small", "large"
}
