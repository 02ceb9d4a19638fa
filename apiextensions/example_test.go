package apiextensions_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

const crontabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  names:
    kind: CronTab
    plural: crontabs
    shortNames: [ct]
  scope: Namespaced
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
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer}
`

// A CRD manifest is all it takes to serve a resource: load it, install it into a
// scheme, and serve the scheme.
func Example() {
	crds, err := apiextensions.Decode([]byte(crontabCRD))
	if err != nil {
		log.Fatal(err)
	}
	s := scheme.New()
	if err := apiextensions.Install(s, crds[0], apiextensions.InstallOptions{}); err != nil {
		log.Fatal(err)
	}
	store := memory.New(memory.Options{})
	defer store.Close()
	h, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	crontabs := srv.URL + "/apis/stable.example.com/v1/namespaces/default/crontabs"
	body := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"backup"},` +
		`"spec":{"cronSpec":"0 3 * * *","image":"backup:1.0","replicas":1}}`
	resp, err := http.Post(crontabs, "application/json", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("POST", resp.Status)

	resp, err = http.Get(crontabs + "/backup")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var got scheme.Unstructured
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		log.Fatal(err)
	}
	spec, _ := json.Marshal(got.Object["spec"])
	fmt.Println("GET", resp.Status, got.GetAPIVersion(), got.GetKind(), got.GetNamespace()+"/"+got.GetName())
	fmt.Println(string(spec))

	// Output:
	// POST 201 Created
	// GET 200 OK stable.example.com/v1 CronTab default/backup
	// {"cronSpec":"0 3 * * *","image":"backup:1.0","replicas":1}
}
