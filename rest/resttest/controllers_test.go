package resttest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/rest/resttest"
	"github.com/apikit-dev/apikit/scheme"
)

func TestWithControllers_CollectsDependentsAndRunsNamespaces(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := resttest.NewServer(t, s, resttest.WithStrategies(builtin.Strategies()), resttest.WithControllers())
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	if code, body := do("POST", "/api/v1/namespaces/nowhere/configmaps", `{"metadata":{"name":"a"}}`); code != http.StatusNotFound || !strings.Contains(body, `namespaces \"nowhere\" not found`) {
		t.Errorf("create in a missing namespace = %d %s, want 404 namespaces \"nowhere\" not found", code, body)
	}
	code, owner := do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"owner"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create owner = %d %s", code, owner)
	}
	uid := owner[strings.Index(owner, `"uid":"`)+7:]
	uid = uid[:strings.Index(uid, `"`)]
	dep := `{"metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"` + uid + `"}]}}`
	if code, body := do("POST", "/api/v1/namespaces/default/configmaps", dep); code != http.StatusCreated {
		t.Fatalf("create dependent = %d %s", code, body)
	}
	if code, _ := do("DELETE", "/api/v1/namespaces/default/configmaps/owner", ""); code != http.StatusOK {
		t.Fatalf("delete owner = %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := do("GET", "/api/v1/namespaces/default/configmaps/dependent", ""); code != http.StatusNotFound {
		t.Errorf("the dependent of a deleted owner = %d, want 404 once the garbage collector is idle", code)
	}
}
