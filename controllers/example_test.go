package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// exampleServer is a REST handler over a fresh memory store serving core/v1 Namespaces
// and apps.example.com/v1 Deployments and ReplicaSets (schema-only kinds), with
// GarbageCollection set so that deletes get kube's propagation finalizers.
func exampleServer() (*scheme.Scheme, *memory.Store, http.Handler) {
	s := scheme.New()
	for _, k := range []struct {
		gv           scheme.GroupVersion
		kind, plural string
		namespaced   bool
	}{
		{scheme.GroupVersion{Version: "v1"}, "Namespace", "namespaces", false},
		{scheme.GroupVersion{Group: "apps.example.com", Version: "v1"}, "Deployment", "deployments", true},
		{scheme.GroupVersion{Group: "apps.example.com", Version: "v1"}, "ReplicaSet", "replicasets", true},
	} {
		s.AddUnstructuredKind(k.gv.WithKind(k.kind))
		s.AddUnstructuredKind(k.gv.WithKind(k.kind + "List"))
		if err := s.AddResource(scheme.Resource{Group: k.gv.Group, Kind: k.kind, Plural: k.plural, Namespaced: k.namespaced}); err != nil {
			log.Fatal(err)
		}
	}
	store := memory.New(memory.Options{})
	h, err := rest.New(rest.Options{Scheme: s, Storage: store, AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, GarbageCollection: true})
	if err != nil {
		log.Fatal(err)
	}
	return s, store, h
}

// A host runs the controllers over the store its REST handler serves, until Stop or the
// end of ctx. Start creates the default namespaces, as kube-apiserver does, before it
// returns.
func ExampleStart() {
	s, store, h := exampleServer()
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := controllers.Start(ctx, controllers.Options{Scheme: s, Storage: store})
	if err != nil {
		log.Fatal(err)
	}
	defer mgr.Stop()

	var names []string
	for _, ns := range call(h, "GET", "/api/v1/namespaces", "")["items"].([]any) {
		names = append(names, ns.(map[string]any)["metadata"].(map[string]any)["name"].(string))
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// default kube-node-lease kube-public kube-system
}

// WaitIdle waits until the controllers have acted on every write made so far: here the
// garbage collector deleting the dependent of a deleted owner, which a test then checks
// without polling.
func ExampleManager_WaitIdle() {
	s, store, h := exampleServer()
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mgr, err := controllers.Start(ctx, controllers.Options{Scheme: s, Storage: store})
	if err != nil {
		log.Fatal(err)
	}
	defer mgr.Stop()

	apps := "/apis/apps.example.com/v1/namespaces/default/"
	owner := call(h, "POST", apps+"deployments", `{"apiVersion":"apps.example.com/v1","kind":"Deployment","metadata":{"name":"web"}}`)
	uid := owner["metadata"].(map[string]any)["uid"].(string)
	call(h, "POST", apps+"replicasets", `{"apiVersion":"apps.example.com/v1","kind":"ReplicaSet","metadata":{"name":"web-1",
		"ownerReferences":[{"apiVersion":"apps.example.com/v1","kind":"Deployment","name":"web","uid":"`+uid+`"}]}}`)
	call(h, "DELETE", apps+"deployments/web", "")
	if err := mgr.WaitIdle(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("GET the dependent:", call(h, "GET", apps+"replicasets/web-1", "")["reason"])
	// Output:
	// GET the dependent: NotFound
}

// call serves one request with h and decodes the JSON it answers.
func call(h http.Handler, method, path, body string) map[string]any {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		log.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	return m
}
