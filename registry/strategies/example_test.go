package strategies_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A server of the built-in kinds with kube's write rules: a Secret's stringData is
// merged into data and its type defaulted, and an immutable ConfigMap refuses a change
// of its data as kube-apiserver does (422 Invalid).
func ExampleBuiltin() {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		log.Fatal(err)
	}
	h, err := rest.New(rest.Options{Scheme: s, Storage: memory.New(memory.Options{}),
		Strategies: strategies.Builtin(), AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}})
	if err != nil {
		log.Fatal(err)
	}
	send := func(method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	send(http.MethodPost, "/api/v1/namespaces", `{"metadata":{"name":"default"}}`)

	w := send(http.MethodPost, "/api/v1/namespaces/default/secrets", `{"metadata":{"name":"s"},"stringData":{"password":"hunter2"}}`)
	var secret corev1.Secret
	if err := json.Unmarshal(w.Body.Bytes(), &secret); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Code, secret.Type, string(secret.Data["password"]), secret.StringData == nil)

	send(http.MethodPost, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"1"}}`)
	w = send(http.MethodPut, "/api/v1/namespaces/default/configmaps/c", `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"2"}}`)
	var status scheme.Status
	if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Code, status.Reason)
	fmt.Println(status.Message)
	// Output:
	// 201 Opaque hunter2 true
	// 422 Invalid
	// ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set
}
