package authn

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// TokenReview delegates bearer tokens to a kube-apiserver (authentication.k8s.io/v1
// TokenReview POSTed to Server+"/apis/authentication.k8s.io/v1/tokenreviews" with Client),
// caching answers like kube's delegating authenticator (success and failure TTLs; kube's
// delegating defaults: CacheTTL 10s). Audiences optional. Errors talking to the server:
// error (401), never cached. The response's user/groups/uid/extra become the User.
//
// It is k8s.io/apiserver's delegating token authenticator (--authentication-kubeconfig,
// --authentication-token-webhook-cache-ttl): the bearer token is read as kube's
// bearertoken authenticator reads it (see TokenFile.Authenticate); an answer is cached
// for CacheTTL, whether authenticated or not, unless it carries an error (status.error
// of a refusal, or a failed request), which is never cached. With Audiences, the review
// asks for them, and an answer whose status.audiences (or, when it names none,
// Audiences themselves) share none of them is a refusal. Unlike kube, a failed request
// is not retried: the request that needed it gets 401, the next one asks again.
//
// The cache holds at most MaxCacheEntries answers, keyed by an HMAC of the token under
// a random key, so that tokens are neither kept nor recoverable from memory. A
// TokenReview must not be copied after first use.
type TokenReview struct {
	Server    string        // base URL of the kube-apiserver
	Client    *http.Client  // carries the credentials (the serving package builds it from a kubeconfig)
	CacheTTL  time.Duration // 0 = 10s
	Audiences []string

	// MaxCacheEntries bounds the cache; 0 means DefaultMaxCacheEntries. When it is full,
	// expired answers go first, then arbitrary ones.
	MaxCacheEntries int
	// Now is the cache's clock; nil means time.Now. Tests set it to step time.
	Now func() time.Time

	init  sync.Once
	key   [32]byte
	mu    sync.Mutex
	cache map[[sha256.Size]byte]cachedReview
}

// DefaultMaxCacheEntries is the number of TokenReview answers kept when
// TokenReview.MaxCacheEntries is 0.
const DefaultMaxCacheEntries = 4096

// defaultTokenReviewClient is the client of a TokenReview without one: no
// credentials, and kube's default --authentication-token-webhook timeout of 10 s.
var defaultTokenReviewClient = &http.Client{Timeout: 10 * time.Second}

// maxTokenReviewBody bounds the answer read from the server.
const maxTokenReviewBody = 1 << 20

// tokenReviewPath is where kube-apiserver serves TokenReview.
const tokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews"

// cachedReview is a remembered answer: who the token is (nil: nobody) until expires.
type cachedReview struct {
	user    *User
	expires time.Time
}

// Authenticate implements Authenticator. Redirects from the server are not
// followed: they would carry the token elsewhere.
func (t *TokenReview) Authenticate(r *http.Request) (*User, bool, error) {
	return authenticateBearer(r, t.lookup)
}

// lookup answers from the cache, or asks the server and remembers its answer.
func (t *TokenReview) lookup(ctx context.Context, token string) (*User, bool, error) {
	t.init.Do(func() {
		_, _ = rand.Read(t.key[:]) // crypto/rand.Read never fails
		t.cache = map[[sha256.Size]byte]cachedReview{}
	})
	mac := hmac.New(sha256.New, t.key[:])
	mac.Write([]byte(token))
	var key [sha256.Size]byte
	mac.Sum(key[:0])

	now := t.now()
	t.mu.Lock()
	c, hit := t.cache[key]
	t.mu.Unlock()
	if hit && now.Before(c.expires) {
		if c.user == nil {
			return nil, false, nil
		}
		return cloneUser(c.user), true, nil
	}

	user, err := t.review(ctx, token)
	if err != nil {
		return nil, false, err
	}
	t.remember(key, cachedReview{user: user, expires: now.Add(t.ttl())})
	if user == nil {
		return nil, false, nil
	}
	return cloneUser(user), true, nil
}

func (t *TokenReview) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *TokenReview) ttl() time.Duration {
	if t.CacheTTL > 0 {
		return t.CacheTTL
	}
	return 10 * time.Second
}

// remember stores an answer, making room first when the cache is full.
func (t *TokenReview) remember(key [sha256.Size]byte, c cachedReview) {
	limit := t.MaxCacheEntries
	if limit <= 0 {
		limit = DefaultMaxCacheEntries
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.cache[key]; !ok && len(t.cache) >= limit {
		for k, old := range t.cache {
			if !now.Before(old.expires) {
				delete(t.cache, k)
			}
		}
		for k := range t.cache {
			if len(t.cache) < limit {
				break
			}
			delete(t.cache, k)
		}
	}
	t.cache[key] = c
}

// The authentication.k8s.io/v1 TokenReview, as much of it as is sent and read.
type (
	tokenReviewObject struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Spec       tokenReviewSpec   `json:"spec"`
		Status     tokenReviewStatus `json:"status,omitzero"`
	}
	tokenReviewSpec struct {
		Token     string   `json:"token"`
		Audiences []string `json:"audiences,omitempty"`
	}
	tokenReviewStatus struct {
		Authenticated bool                `json:"authenticated,omitempty"`
		User          tokenReviewUserInfo `json:"user,omitzero"`
		Audiences     []string            `json:"audiences,omitempty"`
		Error         string              `json:"error,omitempty"`
	}
	tokenReviewUserInfo struct {
		Username string              `json:"username,omitempty"`
		UID      string              `json:"uid,omitempty"`
		Groups   []string            `json:"groups,omitempty"`
		Extra    map[string][]string `json:"extra,omitempty"`
	}
	// statusMessage is the message of a metav1.Status error answer.
	statusMessage struct {
		Message string `json:"message"`
	}
)

// review asks the server who token is: the user, nil for nobody, or an error when the
// server could not tell (which is not to be cached).
func (t *TokenReview) review(ctx context.Context, token string) (*User, error) {
	body, err := json.Marshal(tokenReviewObject{
		APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview",
		Spec: tokenReviewSpec{Token: token, Audiences: t.Audiences},
	})
	if err != nil {
		return nil, fmt.Errorf("TokenReview: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(t.Server, "/")+tokenReviewPath, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("TokenReview: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	client := *defaultTokenReviewClient
	if t.Client != nil {
		client = *t.Client
	}
	// A redirect would send the token on to wherever the answer points.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("TokenReview: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenReviewBody+1))
	if err != nil {
		return nil, fmt.Errorf("TokenReview: reading the answer: %w", err)
	}
	if len(data) > maxTokenReviewBody {
		return nil, fmt.Errorf("TokenReview: the answer is larger than %d bytes", maxTokenReviewBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var status statusMessage
		_ = json.Unmarshal(data, &status)
		return nil, fmt.Errorf("TokenReview: the server answered %s: %q", resp.Status, status.Message)
	}
	var answer tokenReviewObject
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, fmt.Errorf("TokenReview: decoding the answer: %w", err)
	}
	return t.userOf(answer.Status)
}

// userOf turns a review's status into the user, as kube's webhook token authenticator.
func (t *TokenReview) userOf(s tokenReviewStatus) (*User, error) {
	if len(t.Audiences) > 0 {
		got := t.Audiences
		if len(s.Audiences) > 0 {
			got = s.Audiences
		}
		if !slices.ContainsFunc(t.Audiences, func(a string) bool { return slices.Contains(got, a) }) {
			return nil, nil
		}
	}
	if !s.Authenticated {
		if s.Error != "" {
			return nil, errors.New(s.Error)
		}
		return nil, nil
	}
	return cloneUser(&User{Name: s.User.Username, UID: s.User.UID, Groups: s.User.Groups, Extra: s.User.Extra}), nil
}
