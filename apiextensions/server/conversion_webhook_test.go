package server_test

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/webhook"
)

// gadgetCRD has two versions: v1 (stored) names a colour spec.color, v2 spec.colour.
const gadgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.tools.example.com"},
  "spec": {
    "group": "tools.example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
    "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "URL", "caBundle": "CA"}}},
    "versions": [
      {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"color": {"type": "string"}}}}}}},
      {"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"colour": {"type": "string"}}}}}}}
    ]
  }
}`

// colourWebhook converts Gadgets between v1 and v2, or, as mode says, answers with
// another uid ("lie") or not at all ("hang"). It counts the reviews it is sent.
func colourWebhook(mode *atomic.Value, calls *atomic.Int32, hang chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review struct {
			Request struct {
				UID               string           `json:"uid"`
				DesiredAPIVersion string           `json:"desiredAPIVersion"`
				Objects           []map[string]any `json:"objects"`
			} `json:"request"`
		}
		_ = json.NewDecoder(r.Body).Decode(&review)
		uid := review.Request.UID
		switch mode.Load() {
		case "hang":
			// Past the client's timeout, whatever the server's request context says
			// (under load it was seen to end first, and the empty 200 then reached
			// the client), until the test ends.
			select {
			case <-hang:
			case <-time.After(10 * time.Second):
			}
			return
		case "lie":
			uid = "another"
		}
		for _, obj := range review.Request.Objects {
			spec, _ := obj["spec"].(map[string]any)
			if strings.HasSuffix(review.Request.DesiredAPIVersion, "/v2") {
				spec["colour"], spec["color"] = spec["color"], nil
				delete(spec, "color")
			} else {
				spec["color"] = spec["colour"]
				delete(spec, "colour")
			}
			obj["apiVersion"] = review.Request.DesiredAPIVersion
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
			"response": map[string]any{"uid": uid, "convertedObjects": review.Request.Objects, "result": map[string]any{"status": "Success"}},
		})
	})
}

func TestCRD_ConversionWebhookServesEveryVersionAndItsFailureIsKubes500(t *testing.T) {
	var mode atomic.Value
	mode.Store("ok")
	var calls atomic.Int32
	hang := make(chan struct{})
	hook := httptest.NewTLSServer(colourWebhook(&mode, &calls, hang))
	defer hook.Close()
	defer close(hang)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	caJSON, _ := json.Marshal(ca)
	crds, err := apiextensions.Decode([]byte(strings.NewReplacer(`"URL"`, `"`+hook.URL+`/convert"`, `"CA"`, string(caJSON)).Replace(gadgetCRD)))
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New(memory.Options{})
	defer store.Close()
	h, err := crdserver.Start(t.Context(), crdserver.Options{
		Scheme: scheme.New(), Storage: store, CRDs: crds,
		REST:    rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}},
		Install: apiextensions.InstallOptions{Webhook: webhook.Options{Timeout: 300 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Close() }()
	srv := httptest.NewServer(h)
	defer srv.Close()
	s := &server{t: t, url: srv.URL, h: h}
	const v1, v2 = "/apis/tools.example.com/v1/namespaces/default/gadgets", "/apis/tools.example.com/v2/namespaces/default/gadgets"

	// A correct webhook: a write in v2 is stored in v1, and read in either.
	code, created := s.do("POST", v2, `{"apiVersion":"tools.example.com/v2","kind":"Gadget","metadata":{"name":"a"},"spec":{"colour":"red"}}`)
	if code != http.StatusCreated || created["apiVersion"] != "tools.example.com/v2" || spec(created)["colour"] != "red" {
		t.Fatalf("create in v2: %d %v", code, created)
	}
	if code, got := s.do("GET", v1+"/a", ""); code != http.StatusOK || spec(got)["color"] != "red" || spec(got)["colour"] != nil {
		t.Fatalf("get in v1: %d %v", code, got)
	}
	code, list := s.do("GET", v2, "")
	items, _ := list["items"].([]any)
	if code != http.StatusOK || len(items) != 1 || spec(items[0].(map[string]any))["colour"] != "red" || items[0].(map[string]any)["apiVersion"] != "tools.example.com/v2" {
		t.Fatalf("list in v2: %d %v", code, list)
	}
	// A watch in v2 sees an object written in v1 converted.
	watch, err := http.Get(srv.URL + v2 + "?watch=1&resourceVersion=" + created["metadata"].(map[string]any)["resourceVersion"].(string) + "&timeoutSeconds=5")
	if err != nil {
		t.Fatal(err)
	}
	if code, got := s.do("POST", v1, `{"apiVersion":"tools.example.com/v1","kind":"Gadget","metadata":{"name":"w"},"spec":{"color":"teal"}}`); code != http.StatusCreated {
		t.Fatalf("create in v1: %d %v", code, got)
	}
	var event struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	err = json.NewDecoder(watch.Body).Decode(&event)
	watch.Body.Close()
	if err != nil || event.Type != "ADDED" || event.Object["apiVersion"] != "tools.example.com/v2" || spec(event.Object)["colour"] != "teal" {
		t.Fatalf("watch in v2: %v %+v", err, event)
	}
	if code, _ := s.do("DELETE", v1+"/w", ""); code != http.StatusOK {
		t.Fatalf("delete w: %d", code)
	}

	before := calls.Load()
	if code, _ := s.do("GET", v1, ""); code != http.StatusOK || calls.Load() != before {
		t.Errorf("a read in the storage version called the webhook (%d calls; %d)", calls.Load()-before, code)
	}
	// A list is one review, whatever its length, as kube-apiserver sends it.
	for _, name := range []string{"l1", "l2", "l3"} {
		if code, got := s.do("POST", v1, `{"apiVersion":"tools.example.com/v1","kind":"Gadget","metadata":{"name":"`+name+`"},"spec":{"color":"grey"}}`); code != http.StatusCreated {
			t.Fatalf("create %s in v1: %d %v", name, code, got)
		}
	}
	before = calls.Load()
	if code, list := s.do("GET", v2, ""); code != http.StatusOK || len(list["items"].([]any)) != 4 || calls.Load()-before != 1 {
		t.Errorf("a list of 4 in v2: %d, %d webhook calls, want 200 and 1", code, calls.Load()-before)
	}
	for _, name := range []string{"l1", "l2", "l3"} {
		if code, _ := s.do("DELETE", v1+"/"+name, ""); code != http.StatusOK {
			t.Fatalf("delete %s: %d", name, code)
		}
	}

	// A lying webhook: every read and write that needs it is kube's 500; nothing is stored.
	mode.Store("lie")
	for _, tt := range []struct {
		name, method, path, body, want string
	}{
		{"a create in v2", "POST", v2, `{"apiVersion":"tools.example.com/v2","kind":"Gadget","metadata":{"name":"b"},"spec":{"colour":"blue"}}`,
			`conversion webhook for tools.example.com/v2, Kind=Gadget failed: expected response.uid="`},
		// kube converts a GET while decoding it from storage: its storage's InternalError.
		{"a get in v2", "GET", v2 + "/a", "", `Internal error occurred: StorageError: corrupt object, Code: 7, AdditionalErrorMsg: object not decodable: conversion webhook for tools.example.com/v1, Kind=Gadget failed: expected response.uid="`},
		// A list is converted in one review, which kube's message names by the list kind.
		{"a list in v2", "GET", v2, "", `conversion webhook for tools.example.com/v2, Kind=GadgetList failed: expected response.uid="`},
		{"an update in v2", "PUT", v2 + "/a", `{"apiVersion":"tools.example.com/v2","kind":"Gadget","metadata":{"name":"a"},"spec":{"colour":"green"}}`,
			`conversion webhook for tools.example.com/v`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, st := s.do(tt.method, tt.path, tt.body)
			msg, _ := st["message"].(string)
			if code != http.StatusInternalServerError || st["kind"] != "Status" || (st["reason"] != nil) != strings.HasPrefix(tt.want, "Internal error") || st["code"] != 500.0 || !strings.HasPrefix(msg, tt.want) || !strings.Contains(msg, `got "another"`) {
				t.Errorf("%s: %d %v, want kube's 500 starting %q", tt.name, code, st, tt.want)
			}
		})
	}
	if code, got := s.do("GET", v1+"/b", ""); code != http.StatusNotFound {
		t.Errorf("the refused create stored b: %d %v", code, got)
	}
	if code, got := s.do("GET", v1+"/a", ""); code != http.StatusOK || spec(got)["color"] != "red" {
		t.Errorf("the refused update changed a: %d %v", code, got)
	}

	// A hung webhook: the read fails within the client's timeout.
	mode.Store("hang")
	code, st := s.do("GET", v2+"/a", "")
	if msg, _ := st["message"].(string); code != http.StatusInternalServerError || !strings.HasSuffix(msg, "/convert?timeout=300ms\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)") {
		t.Errorf("get through a hung webhook: %d %v", code, st)
	}
}

func spec(obj map[string]any) map[string]any {
	s, _ := obj["spec"].(map[string]any)
	return s
}
