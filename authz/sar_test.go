package authz_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"

	"github.com/apikit-dev/apikit/authn"

	"github.com/google/go-cmp/cmp"
)

// fakeReviewer is a kube-apiserver stand-in that answers SubjectAccessReviews: bob may
// do anything, mallory is denied outright, everyone else gets no opinion.
type fakeReviewer struct {
	calls atomic.Int32
	mu    sync.Mutex
	last  authorizationv1.SubjectAccessReview
	fail  atomic.Bool
}

func (f *fakeReviewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/apis/authorization.k8s.io/v1/subjectaccessreviews" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "unexpected request", http.StatusBadRequest)
		return
	}
	if f.fail.Load() {
		http.Error(w, "etcd is down", http.StatusInternalServerError)
		return
	}
	var review authorizationv1.SubjectAccessReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.last = review
	f.mu.Unlock()
	switch review.Spec.User {
	case "bob":
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "bob may"}
	case "mallory":
		review.Status = authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "mallory may not"}
	default:
		review.Status = authorizationv1.SubjectAccessReviewStatus{Reason: "no opinion"}
	}
	_ = json.NewEncoder(w).Encode(review)
}

func TestSubjectAccessReview_AsksTheServerAndCachesAnswersForTheirTTL(t *testing.T) {
	fake := &fakeReviewer{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	sar := &authz.SubjectAccessReview{Server: srv.URL + "/", Client: srv.Client(), DenyTTL: 5 * time.Second,
		Clock: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }}
	advance := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	ask := func(a authz.Attributes) (bool, string) {
		t.Helper()
		allowed, reason, err := sar.Authorize(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		return allowed, reason
	}
	bob := &authn.User{Name: "bob", UID: "1", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}}
	list := res(bob, "list", "toys.example.com", "widgets/status", "default", "")
	list.APIVersion = "v1"
	if allowed, reason := ask(list); !allowed || reason != "bob may" {
		t.Fatalf("bob: %v %q, want allowed", allowed, reason)
	}
	want := authorizationv1.SubjectAccessReviewSpec{User: "bob", UID: "1", Groups: []string{"dev"}, Extra: map[string]authorizationv1.ExtraValue{"scopes": {"a"}},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Group: "toys.example.com", Version: "v1", Resource: "widgets", Subresource: "status"}}
	fake.mu.Lock()
	if d := cmp.Diff(want, fake.last.Spec); d != "" || fake.last.APIVersion != "authorization.k8s.io/v1" || fake.last.Kind != "SubjectAccessReview" {
		t.Errorf("the review sent (-want +got):\n%s\n%s %s", d, fake.last.APIVersion, fake.last.Kind)
	}
	fake.mu.Unlock()
	if allowed, _ := ask(path(&authn.User{Name: "mallory"}, "get", "/metrics")); allowed {
		t.Error("mallory allowed")
	}
	if allowed, reason := ask(path(&authn.User{Name: "eve"}, "get", "/metrics")); allowed || reason != "no opinion" {
		t.Errorf("eve: %v %q, want not allowed, no opinion", allowed, reason)
	}
	if n := fake.calls.Load(); n != 3 {
		t.Fatalf("%d reviews for 3 questions", n)
	}

	fake.fail.Store(true) // from now on only the cache answers
	advance(4 * time.Second)
	if allowed, _ := ask(list); !allowed {
		t.Error("the cached allow of bob was forgotten within the allow TTL")
	}
	if allowed, reason := ask(path(&authn.User{Name: "mallory"}, "get", "/metrics")); allowed || reason != "mallory may not" {
		t.Errorf("the cached deny of mallory: %v %q", allowed, reason)
	}
	advance(2 * time.Second) // 6s: past DenyTTL, within the default AllowTTL of 10s
	if allowed, _ := ask(list); !allowed {
		t.Error("the cached allow of bob was forgotten within the default allow TTL")
	}
	allowed, reason, err := sar.Authorize(context.Background(), path(&authn.User{Name: "mallory"}, "get", "/metrics"))
	if allowed || reason != "" || err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("mallory past the deny TTL with the server failing: %v %q %v, want (false, \"\", the server's error)", allowed, reason, err)
	}
	advance(5 * time.Second)
	if allowed, _, err := sar.Authorize(context.Background(), list); allowed || err == nil {
		t.Errorf("bob past the allow TTL with the server failing: %v %v, want an error", allowed, err)
	}
}

func TestSubjectAccessReview_BoundsTheAnswerItReads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, io.LimitReader(zeros{}, 2<<20))
	}))
	t.Cleanup(srv.Close)
	sar := &authz.SubjectAccessReview{Server: srv.URL, Client: srv.Client()}
	allowed, _, err := sar.Authorize(context.Background(), path(&authn.User{Name: "bob"}, "get", "/"))
	if allowed || err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a 2 MiB answer: %v %v, want an error", allowed, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestUnion_FirstAllowWinsElseReasonsAndErrorsJoin(t *testing.T) {
	no := func(reason string, err error) authz.Authorizer {
		return authorizerFunc(func(context.Context, authz.Attributes) (bool, string, error) { return false, reason, err })
	}
	yes := authorizerFunc(func(context.Context, authz.Attributes) (bool, string, error) { return true, "yes", nil })
	boom, bang := errors.New("boom"), errors.New("bang")
	allowed, reason, err := authz.Union(no("a", boom), no("", nil), yes, no("never asked", bang)).Authorize(context.Background(), authz.Attributes{})
	if !allowed || reason != "yes" || err != nil {
		t.Errorf("an allowing member: %v %q %v", allowed, reason, err)
	}
	allowed, reason, err = authz.Union(no("a", boom), no("", nil), no("b", bang)).Authorize(context.Background(), authz.Attributes{})
	if allowed || reason != "a, b" || !errors.Is(err, boom) || !errors.Is(err, bang) {
		t.Errorf("no allowing member: %v %q %v, want false \"a, b\" boom+bang", allowed, reason, err)
	}
	if allowed, reason, err := authz.Union().Authorize(context.Background(), authz.Attributes{}); allowed || reason != "" || err != nil {
		t.Errorf("an empty union: %v %q %v", allowed, reason, err)
	}
}

type authorizerFunc func(context.Context, authz.Attributes) (bool, string, error)

func (f authorizerFunc) Authorize(ctx context.Context, a authz.Attributes) (bool, string, error) {
	return f(ctx, a)
}

func TestAlwaysAllowPathsAndPrivilegedGroups(t *testing.T) {
	paths := authz.AlwaysAllowPaths("/healthz", "/metrics/*", "/", "/a*b")
	masters := authz.PrivilegedGroups("system:masters")
	admin := &authn.User{Name: "root", Groups: []string{"system:masters"}}
	bob := &authn.User{Name: "bob", Groups: []string{"system:authenticated"}}
	for _, tt := range []struct {
		name    string
		az      authz.Authorizer
		attrs   authz.Attributes
		allowed bool
	}{
		{"an exact path", paths, path(bob, "get", "/healthz"), true},
		{"below an exact path", paths, path(bob, "get", "/healthz/ping"), false},
		{"below a prefix", paths, path(bob, "post", "/metrics/slis"), true},
		{"the prefix itself", paths, path(bob, "get", "/metrics/"), true},
		{"the prefix without its slash", paths, path(bob, "get", "/metrics"), false},
		{"the root", paths, path(bob, "get", "/"), true},
		{"a star inside is a character", paths, path(bob, "get", "/axb"), false},
		{"never a resource", paths, authz.Attributes{User: bob, Verb: "get", Path: "/healthz", ResourceRequest: true}, false},
		{"a member of the group", masters, res(admin, "delete", "", "secrets", "x", "s"), true},
		{"someone else", masters, res(bob, "get", "", "secrets", "x", "s"), false},
		{"no user", masters, authz.Attributes{Verb: "get", Path: "/"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if allowed, _, err := tt.az.Authorize(context.Background(), tt.attrs); allowed != tt.allowed || err != nil {
				t.Errorf("Authorize = %v, %v; want %v", allowed, err, tt.allowed)
			}
		})
	}
}
