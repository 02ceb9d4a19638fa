package rest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/rest"
	"github.com/google/go-cmp/cmp"
)

// bearerNames authenticates "Bearer NAME" as the user NAME.
type bearerNames struct{}

func (bearerNames) Authenticate(r *http.Request) (*authn.User, bool, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	return &authn.User{Name: name, Groups: []string{"system:authenticated"}}, true, nil
}

// impersonationPolicy lets anyone do anything but impersonate: only what may lists,
// as "resource[/subresource] name". It records the user of the other requests.
type impersonationPolicy struct {
	may  map[string]bool
	mu   sync.Mutex
	seen *authn.User
}

func (p *impersonationPolicy) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	if a.Verb != "impersonate" {
		p.mu.Lock()
		p.seen = a.User
		p.mu.Unlock()
		return true, "", nil
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	return p.may[res+" "+a.Name], "", nil
}

func TestImpersonation_AuthorizedAsKubeAndServedAsTheImpersonatedUser(t *testing.T) {
	policy := &impersonationPolicy{may: map[string]bool{
		"users alice": true, "groups admins": true, "groups system:unauthenticated": true, "serviceaccounts robot": true,
		"userextras/scopes view": true, "uids 42": true, "users system:anonymous": true,
	}}
	s := newServer(t, func(o *rest.Options) {
		o.Authenticator, o.AllowAnonymous, o.AllowBearerTokensOverHTTP = bearerNames{}, false, true
		o.Authorizer = policy
	})
	tests := []struct {
		name    string
		headers []string
		code    int
		want    *authn.User
		message string
	}{
		{"without headers the requester is the user", nil, 200, &authn.User{Name: "bob", Groups: []string{"system:authenticated"}}, ""},
		{"a user, a group, an extra and a uid", []string{"Impersonate-User", "alice", "Impersonate-Group", "admins",
			"Impersonate-Extra-Scopes", "view", "Impersonate-Uid", "42"}, 200,
			&authn.User{Name: "alice", UID: "42", Groups: []string{"admins", "system:authenticated"}, Extra: map[string][]string{"scopes": {"view"}}}, ""},
		{"a service account gets its groups", []string{"Impersonate-User", "system:serviceaccount:ci:robot"}, 200,
			&authn.User{Name: "system:serviceaccount:ci:robot", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"}}, ""},
		{"system:unauthenticated keeps system:authenticated out", []string{"Impersonate-User", "alice", "Impersonate-Group", "system:unauthenticated"}, 200,
			&authn.User{Name: "alice", Groups: []string{"system:unauthenticated"}}, ""},
		{"system:anonymous is unauthenticated", []string{"Impersonate-User", "system:anonymous"}, 200,
			&authn.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, ""},
		{"a user not allowed", []string{"Impersonate-User", "root"}, 403, nil,
			`users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{"a group not allowed", []string{"Impersonate-User", "alice", "Impersonate-Group", "system:masters"}, 403, nil,
			`groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{"a service account not allowed", []string{"Impersonate-User", "system:serviceaccount:prod:deployer"}, 403, nil,
			`serviceaccounts "deployer" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "prod"`},
		{"an extra not allowed", []string{"Impersonate-User", "alice", "Impersonate-Extra-Scopes", "admin"}, 403, nil,
			`userextras.authentication.k8s.io "admin" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{"a uid not allowed", []string{"Impersonate-User", "alice", "Impersonate-Uid", "0"}, 403, nil,
			`uids.authentication.k8s.io "0" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`},
		{"a group without a user", []string{"Impersonate-Group", "admins"}, 400, nil, `requested [{Group  admins    }] without impersonating a user`},
		{"a uid without a user", []string{"Impersonate-Uid", "42"}, 400, nil, `requested [{UID  42  authentication.k8s.io/v1  }] without impersonating a user`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy.seen = nil
			r := s.do("GET", widgetsPath, "", "", append([]string{"Authorization", "Bearer bob"}, tt.headers...)...)
			if r.code != tt.code {
				t.Fatalf("GET with %v: %d %s, want %d", tt.headers, r.code, r.body, tt.code)
			}
			if tt.message != "" {
				if got := r.json(t)["message"]; got != tt.message {
					t.Errorf("message %q, want %q", got, tt.message)
				}
				return
			}
			if d := cmp.Diff(tt.want, policy.seen); d != "" {
				t.Errorf("the request's user (-want +got):\n%s", d)
			}
		})
	}
}
