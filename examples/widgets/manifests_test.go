package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// TestManifests_READMEWidgetIsCreatedAsShown sends the manifest of README.md's kubectl
// session to the example server, as kubectl apply does (a create in the kubeconfig's
// namespace, default), and checks that the server accepts it with the strict field
// validation kubectl asks for and that it holds what `kubectl get widgets` then prints.
func TestManifests_READMEWidgetIsCreatedAsShown(t *testing.T) {
	manifest, err := os.ReadFile("manifests/widget.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Addr: "127.0.0.1:0", Storage: server.StorageMemory, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	serve := func(method, path, contentType string, body []byte) *httptest.ResponseRecorder {
		// https: the server takes bearer tokens only over TLS, as kubectl sends them.
		req := httptest.NewRequest(method, srv.TLSURL()+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.Token())
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	widgets := "/apis/toys.example.com/v1/namespaces/default/widgets"
	if rec := serve(http.MethodPost, widgets+"?fieldValidation=Strict", "application/yaml", manifest); rec.Code != http.StatusCreated {
		t.Fatalf("POST manifests/widget.yaml = %d %s, want 201", rec.Code, rec.Body)
	}
	rec := serve(http.MethodGet, widgets+"/sprocket", "", nil)
	var got struct {
		Spec struct {
			Color    string `json:"color"`
			Replicas int32  `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("GET sprocket = %d %s: %v", rec.Code, rec.Body, err)
	}
	if got.Spec.Color != "blue" || got.Spec.Replicas != 2 {
		t.Errorf("sprocket's spec = %+v, want color blue and 2 replicas as README.md shows", got.Spec)
	}
}
