package authn_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authn"
)

// fakeKubeAPIServer answers TokenReviews: per token, the status to send, or an HTTP
// error code; it counts the reviews it got per token.
type fakeKubeAPIServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	answers map[string]fakeAnswer
	reviews map[string]int
	// lastAudiences are the spec.audiences of the last review.
	lastAudiences []string
}

type fakeAnswer struct {
	code   int    // 0: 201 Created with status
	status string // the JSON of the TokenReview's status
	body   string // sent instead of a TokenReview when not ""
}

func newFakeKubeAPIServer(t *testing.T, answers map[string]fakeAnswer) *fakeKubeAPIServer {
	f := &fakeKubeAPIServer{t: t, answers: answers, reviews: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeKubeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/apis/authentication.k8s.io/v1/tokenreviews" ||
		r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("request %s %s (Content-Type %q), want a JSON POST of a TokenReview", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			Token     string   `json:"token"`
			Audiences []string `json:"audiences"`
		} `json:"spec"`
	}
	data, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(data, &review); err != nil || review.APIVersion != "authentication.k8s.io/v1" || review.Kind != "TokenReview" {
		f.t.Errorf("body %s (%v), want an authentication.k8s.io/v1 TokenReview", data, err)
	}
	f.mu.Lock()
	f.reviews[review.Spec.Token]++
	f.lastAudiences = review.Spec.Audiences
	answer := f.answers[review.Spec.Token]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case answer.code != 0:
		w.WriteHeader(answer.code)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd is down","code":500}`)
	case answer.body != "":
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, answer.body)
	default:
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":`+answer.status+`}`)
	}
}

func (f *fakeKubeAPIServer) reviewsOf(token string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reviews[token]
}

// steppingClock is a clock a test moves by hand.
type steppingClock struct{ now time.Time }

func (c *steppingClock) Now() time.Time { return c.now }

func TestTokenReview_AsksTheKubeAPIServerAndCachesItsAnswers(t *testing.T) {
	api := newFakeKubeAPIServer(t, map[string]fakeAnswer{
		"good": {status: `{"authenticated":true,"user":{"username":"alice","uid":"uid-1","groups":["dev"],"extra":{"scopes":["view"]}}}`},
		"bad":  {status: `{"authenticated":false}`},
		"said": {status: `{"authenticated":false,"error":"token expired"}`},
		"down": {code: http.StatusInternalServerError},
		"huge": {body: `{"status":{"authenticated":true,"user":{"username":"` + strings.Repeat("a", 2<<20) + `"}}}`},
	})
	tests := []struct {
		name        string
		token       string
		wantUser    *authn.User
		wantErr     string
		wantReviews int // after two requests within the TTL
	}{
		{
			name: "an accepted token is the user of the review, cached", token: "good",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"dev", "system:authenticated"},
				Extra: map[string][]string{"scopes": {"view"}}},
			wantReviews: 1,
		},
		{name: "a rejected token is an error, cached", token: "bad", wantErr: "invalid bearer token", wantReviews: 1},
		{name: "a rejection with an error is that error, not cached", token: "said", wantErr: "token expired", wantReviews: 2},
		{name: "a server error is an error, not cached", token: "down", wantErr: "etcd is down", wantReviews: 2},
		{name: "an answer larger than 1 MiB is an error", token: "huge", wantErr: "larger than", wantReviews: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &steppingClock{now: time.Unix(1_000_000, 0)}
			tr := &authn.TokenReview{Server: api.URL, Client: api.Client(), Now: clock.Now}
			before := api.reviewsOf(tt.token)
			for range 2 {
				got := authenticate(tr, "Bearer "+tt.token)
				checkOutcome(t, got, tt.wantUser, tt.wantErr)
				if got.ok && got.header.Get("Authorization") != "" {
					t.Error("the Authorization header is still there after the token authenticated")
				}
				clock.now = clock.now.Add(9 * time.Second)
			}
			if n := api.reviewsOf(tt.token) - before; n != tt.wantReviews {
				t.Errorf("%d reviews, want %d", n, tt.wantReviews)
			}
		})
	}
}

func TestTokenReview_CachedAnswersExpireAfterCacheTTL(t *testing.T) {
	api := newFakeKubeAPIServer(t, map[string]fakeAnswer{"good": {status: `{"authenticated":true,"user":{"username":"alice"}}`}})
	clock := &steppingClock{now: time.Unix(1_000_000, 0)}
	tr := &authn.TokenReview{Server: api.URL, Client: api.Client(), CacheTTL: time.Minute, Now: clock.Now}
	steps := []struct {
		advance     time.Duration
		wantReviews int
	}{{0, 1}, {59 * time.Second, 1}, {time.Second, 2}, {30 * time.Second, 2}}
	for i, s := range steps {
		clock.now = clock.now.Add(s.advance)
		if got := authenticate(tr, "Bearer good"); !got.ok {
			t.Fatalf("step %d: not authenticated: %v", i, got.err)
		}
		if n := api.reviewsOf("good"); n != s.wantReviews {
			t.Errorf("step %d (+%v): %d reviews, want %d", i, s.advance, n, s.wantReviews)
		}
	}
}

func TestTokenReview_CacheIsBounded(t *testing.T) {
	api := newFakeKubeAPIServer(t, map[string]fakeAnswer{
		"a": {status: `{"authenticated":true,"user":{"username":"a"}}`},
		"b": {status: `{"authenticated":true,"user":{"username":"b"}}`},
	})
	tr := &authn.TokenReview{Server: api.URL, Client: api.Client(), MaxCacheEntries: 1}
	for _, token := range []string{"a", "a", "b", "a"} {
		if got := authenticate(tr, "Bearer "+token); !got.ok || got.user.Name != token {
			t.Fatalf("token %s: ok=%v user=%+v err=%v", token, got.ok, got.user, got.err)
		}
	}
	if n := api.reviewsOf("a"); n != 2 {
		t.Errorf("%d reviews of a, want 2: the cache of one entry must have dropped a for b", n)
	}
}

func TestTokenReview_AudiencesMustIntersect(t *testing.T) {
	api := newFakeKubeAPIServer(t, map[string]fakeAnswer{
		"ours":     {status: `{"authenticated":true,"user":{"username":"alice"},"audiences":["api","other"]}`},
		"theirs":   {status: `{"authenticated":true,"user":{"username":"bob"},"audiences":["other"]}`},
		"implicit": {status: `{"authenticated":true,"user":{"username":"carol"}}`},
	})
	tr := &authn.TokenReview{Server: api.URL, Client: api.Client(), Audiences: []string{"api"}}
	tests := []struct {
		token string
		want  string // "": refused
	}{{"ours", "alice"}, {"theirs", ""}, {"implicit", "carol"}}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			got := authenticate(tr, "Bearer "+tt.token)
			if tt.want == "" && (got.ok || got.err == nil) {
				t.Errorf("ok=%v err=%v, want refused", got.ok, got.err)
			}
			if tt.want != "" && (!got.ok || got.user.Name != tt.want) {
				t.Errorf("ok=%v user=%+v err=%v, want %s", got.ok, got.user, got.err, tt.want)
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			if !slices.Equal(api.lastAudiences, []string{"api"}) {
				t.Errorf("spec.audiences %q, want [api]", api.lastAudiences)
			}
		})
	}
}

func TestTokenReview_RequestWithoutBearerTokenAsksNobody(t *testing.T) {
	api := newFakeKubeAPIServer(t, nil)
	tr := &authn.TokenReview{Server: api.URL, Client: api.Client()}
	for _, authorization := range []string{"", "Basic eDp5", "Bearer  x"} {
		if got := authenticate(tr, authorization); got.ok || got.err != nil {
			t.Errorf("%q: ok=%v err=%v, want no credential", authorization, got.ok, got.err)
		}
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.reviews) != 0 {
		t.Errorf("reviews %v, want none", api.reviews)
	}
}

func TestTokenReview_DoesNotFollowRedirectsWithTheToken(t *testing.T) {
	elsewhere := newFakeKubeAPIServer(t, map[string]fakeAnswer{"good": {status: `{"authenticated":true,"user":{"username":"alice"}}`}})
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	tr := &authn.TokenReview{Server: redirector.URL, Client: redirector.Client()}
	if got := authenticate(tr, "Bearer good"); got.ok || got.err == nil || !strings.Contains(got.err.Error(), "307") {
		t.Errorf("ok=%v err=%v, want an error naming the 307", got.ok, got.err)
	}
	if n := elsewhere.reviewsOf("good"); n != 0 {
		t.Errorf("the token went on to the redirect's target %d times", n)
	}
}

func TestTokenReview_ConcurrentRequestsShareOneCache(t *testing.T) {
	api := newFakeKubeAPIServer(t, map[string]fakeAnswer{"good": {status: `{"authenticated":true,"user":{"username":"alice","groups":["dev"]}}`}})
	tr := &authn.TokenReview{Server: api.URL, Client: api.Client(), MaxCacheEntries: 2}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := "good"
			if i%2 == 1 {
				token = fmt.Sprintf("unknown-%d", i)
			}
			got := authenticate(tr, "Bearer "+token)
			if got.ok != (token == "good") {
				t.Errorf("token %s: ok=%v err=%v", token, got.ok, got.err)
			}
			if got.ok {
				got.user.Groups[0] = "changed by a caller"
			}
		}()
	}
	wg.Wait()
	if got := authenticate(tr, "Bearer good"); !got.ok || got.user.Groups[0] != "dev" {
		t.Errorf("after concurrent use: ok=%v user=%+v err=%v, want alice in dev", got.ok, got.user, got.err)
	}
}
