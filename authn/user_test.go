package authn_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/apikit-dev/apikit/authn"
)

func TestTokenAuthenticator_AcceptsOnlyItsBearerToken(t *testing.T) {
	bob := &authn.User{Name: "bob", Groups: []string{"dev"}}
	tests := []struct {
		name   string
		a      authn.TokenAuthenticator
		header string
		want   string // user name; "" means unauthenticated
	}{
		{"the token is the default admin", authn.TokenAuthenticator{Token: "s3cr3t"}, "Bearer s3cr3t", "admin"},
		{"the token is the configured user", authn.TokenAuthenticator{Token: "s3cr3t", User: bob}, "Bearer s3cr3t", "bob"},
		{"spaces around the token are trimmed", authn.TokenAuthenticator{Token: "s3cr3t"}, "Bearer  s3cr3t ", "admin"},
		{"another token", authn.TokenAuthenticator{Token: "s3cr3t"}, "Bearer s3cr3", ""},
		{"a longer token", authn.TokenAuthenticator{Token: "s3cr3t"}, "Bearer s3cr3tt", ""},
		{"no header", authn.TokenAuthenticator{Token: "s3cr3t"}, "", ""},
		{"basic credentials", authn.TokenAuthenticator{Token: "s3cr3t"}, "Basic s3cr3t", ""},
		{"the token without the scheme", authn.TokenAuthenticator{Token: "s3cr3t"}, "s3cr3t", ""},
		{"an empty Token accepts nothing", authn.TokenAuthenticator{}, "Bearer ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			u, ok, err := tt.a.Authenticate(r)
			if err != nil {
				t.Fatalf("error %v; a token authenticator has no errors to report", err)
			}
			if tt.want == "" {
				if ok || u != nil {
					t.Errorf("authenticated as %+v, want unauthenticated", u)
				}
				return
			}
			if !ok || u == nil || u.Name != tt.want {
				t.Fatalf("got %+v, %v; want %s", u, ok, tt.want)
			}
			if tt.want == "admin" && (len(u.Groups) != 2 || u.Groups[0] != "system:masters" || u.Groups[1] != "system:authenticated") {
				t.Errorf("admin groups %v, want system:masters and system:authenticated", u.Groups)
			}
		})
	}
}

func TestWithUser_UserFromReturnsWhatWasPut(t *testing.T) {
	if u, ok := authn.UserFrom(context.Background()); ok || u != nil {
		t.Errorf("a bare context carries %+v", u)
	}
	alice := &authn.User{Name: "alice"}
	ctx := authn.WithUser(context.Background(), alice)
	if u, ok := authn.UserFrom(ctx); !ok || u != alice {
		t.Errorf("UserFrom = %+v, %v; want the user put in", u, ok)
	}
	bob := &authn.User{Name: "bob"}
	if u, _ := authn.UserFrom(authn.WithUser(ctx, bob)); u != bob {
		t.Errorf("the inner WithUser does not win: %+v", u)
	}
	if u, _ := authn.UserFrom(ctx); u != alice {
		t.Errorf("the outer context changed: %+v", u)
	}
}
