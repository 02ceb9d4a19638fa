package discovery_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
)

// Robot is a kind defined in Go, served by the discovery documents below.
type Robot struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int32 `json:"size"`
	} `json:"spec"`
}

// RobotList is the list kind of Robot.
type RobotList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Robot `json:"items"`
}

// New derives /apis, /apis/GROUP/VERSION, /version and the OpenAPI documents from a
// scheme once; kubectl reads the resource list below to map "rb" to robots.
func ExampleNew() {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "toys.example.com", Version: "v1"}
	s.AddKnownTypes(gv, &Robot{}, &RobotList{})
	if err := s.AddResource(scheme.Resource{
		Group: gv.Group, Kind: "Robot", Plural: "robots", ShortNames: []string{"rb"}, Namespaced: true,
	}); err != nil {
		log.Fatal(err)
	}
	h, err := discovery.New(s, discovery.Options{})
	if err != nil {
		log.Fatal(err)
	}

	get := func(path, accept string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	var list discovery.APIResourceList
	rec := get("/apis/toys.example.com/v1", "application/json")
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		log.Fatal(err)
	}
	for _, r := range list.Resources {
		fmt.Println(r.Name, r.Kind, "namespaced:", r.Namespaced, "short:", r.ShortNames)
		fmt.Println("verbs:", r.Verbs)
	}

	// kubectl asks for aggregated discovery first: every group in one document.
	rec = get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))

	var version discovery.VersionInfo
	if err := json.Unmarshal(get("/version", "application/json").Body.Bytes(), &version); err != nil {
		log.Fatal(err)
	}
	fmt.Println(version.GitVersion)
	// Output:
	// robots Robot namespaced: true short: [rb]
	// verbs: [create delete deletecollection get list patch update watch]
	// 200 application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList
	// v1.32.0+apikit
}
