package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/rest"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/scheme"
)

// nameIsToken authenticates "Bearer NAME" as NAME; admin is in system:masters.
type nameIsToken struct{}

func (nameIsToken) Authenticate(r *http.Request) (*authn.User, bool, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	u := &authn.User{Name: name, Groups: []string{"system:authenticated"}}
	if name == "admin" {
		u.Groups = append(u.Groups, "system:masters")
	}
	return u, true, nil
}

// mastersAndCRBCreators allows system:masters everything and anyone to create
// ClusterRoleBindings.
type mastersAndCRBCreators struct{}

func (mastersAndCRBCreators) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	return slices.Contains(a.User.Groups, "system:masters") || a.Verb == "create" && a.Resource == "clusterrolebindings", "", nil
}

func TestNewServer_ServesTheRBACKindsWithKubesEscalationChecksByDefault(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddRBACToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Authenticator: nameIsToken{}, Authorizer: mastersAndCRBCreators{}}})
	post := func(user, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", srv.URL+"/apis/rbac.authorization.k8s.io/v1/"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+user)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct{ Message string }
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, st.Message
	}
	if code, msg := post("admin", "clusterroles", `{"metadata":{"name":"cluster-admin"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`); code != http.StatusCreated {
		t.Fatalf("admin creating cluster-admin: %d %s", code, msg)
	}
	binding := `{"metadata":{"name":"mine"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"kind":"User","name":"carol"}]}`
	want := `clusterrolebindings.rbac.authorization.k8s.io "mine" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` +
		"\n" + `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`
	if code, msg := post("carol", "clusterrolebindings", binding); code != http.StatusForbidden || msg != want {
		t.Errorf("carol binding cluster-admin to herself: %d %q, want 403 %q", code, msg, want)
	}
	if code, msg := post("admin", "clusterrolebindings", binding); code != http.StatusCreated {
		t.Errorf("admin binding cluster-admin: %d %s", code, msg)
	}
}
