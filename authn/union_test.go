package authn_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
)

// fixedAuthenticator answers every request the same way and counts its calls.
type fixedAuthenticator struct {
	user  *authn.User
	err   error
	calls *int
}

func (f fixedAuthenticator) Authenticate(*http.Request) (*authn.User, bool, error) {
	*f.calls++
	return f.user, f.user != nil && f.err == nil, f.err
}

func TestUnion_FirstToAuthenticateWinsElseErrorsJoined(t *testing.T) {
	alice, bob := &authn.User{Name: "alice"}, &authn.User{Name: "bob"}
	errA, errB := errors.New("a failed"), errors.New("b failed")
	tests := []struct {
		name      string
		members   []fixedAuthenticator
		wantUser  string
		wantErrs  []error
		wantCalls []int
	}{
		{"the first that authenticates wins", []fixedAuthenticator{{user: alice}, {user: bob}}, "alice", nil, []int{1, 0}},
		{"an error does not stop the next", []fixedAuthenticator{{err: errA}, {user: bob}}, "bob", nil, []int{1, 1}},
		{"no credential goes on to the next", []fixedAuthenticator{{}, {user: bob}}, "bob", nil, []int{1, 1}},
		{"when none authenticates the errors are joined", []fixedAuthenticator{{err: errA}, {}, {err: errB}}, "", []error{errA, errB}, []int{1, 1, 1}},
		{"when none authenticates and none failed there is no error", []fixedAuthenticator{{}, {}}, "", nil, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := make([]int, len(tt.members))
			var members []authn.Authenticator
			for i, m := range tt.members {
				m.calls = &calls[i]
				members = append(members, m)
			}
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			user, ok, err := authn.Union(members...).Authenticate(r)
			if tt.wantUser != "" && (!ok || user.Name != tt.wantUser) {
				t.Errorf("user %+v ok=%v, want %s", user, ok, tt.wantUser)
			}
			if tt.wantUser == "" && ok {
				t.Errorf("authenticated as %+v, want nobody", user)
			}
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not include %v", err, want)
				}
			}
			if tt.wantErrs == nil && err != nil {
				t.Errorf("error %v, want none", err)
			}
			for i := range calls {
				if calls[i] != tt.wantCalls[i] {
					t.Errorf("calls %v, want %v", calls, tt.wantCalls)
					break
				}
			}
		})
	}
}

func TestUnion_BadTokenBeatsAnonymousButNotAGoodCertificate(t *testing.T) {
	ca := newCA(t, "client-ca")
	tokens, err := authn.ParseTokenFile(strings.NewReader("secret1,alice,uid-1\n"))
	if err != nil {
		t.Fatal(err)
	}
	u := authn.Union(authn.X509{ClientCA: ca.pool()}, tokens, nil)
	got := authenticateOverTLS(t, u, nil, http.Header{"Authorization": {"Bearer wrong"}})
	if got.ok || got.err == nil || !strings.Contains(got.err.Error(), "invalid bearer token") {
		t.Errorf("bad token: ok=%v err=%v, want the token's error", got.ok, got.err)
	}
	got = authenticateOverTLS(t, u, ca.issue(t, leaf{cn: "bob"}), http.Header{"Authorization": {"Bearer wrong"}})
	if !got.ok || got.user.Name != "bob" {
		t.Errorf("good certificate and bad token: ok=%v user=%+v err=%v, want bob", got.ok, got.user, got.err)
	}
}
