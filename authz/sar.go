package authz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"

	"github.com/apikit-dev/apikit/scheme"
)

// The defaults of SubjectAccessReview, those of k8s.io/apiserver's
// DelegatingAuthorizationOptions.
const (
	DefaultAllowCacheTTL = 10 * time.Second
	DefaultDenyCacheTTL  = 10 * time.Second
)

// sarCacheSize bounds the answers a SubjectAccessReview remembers; past it the oldest
// is forgotten first.
const sarCacheSize = 8192

// maxSARResponseBytes bounds the answer read from the server: a SubjectAccessReview
// is a few hundred bytes, and a misbehaving server must not exhaust memory.
const maxSARResponseBytes = 1 << 20

// SubjectAccessReview delegates to a kube-apiserver (authorization.k8s.io/v1
// SubjectAccessReview POSTed to Server+"/apis/authorization.k8s.io/v1/subjectaccessreviews"),
// caching allow and deny answers (kube's delegating defaults: AllowCacheTTL 10s,
// DenyCacheTTL 10s), bounded cache, bounded body read; a server error is (false, "", err).
//
// This is what an aggregated API server does with the requests kube-apiserver's
// aggregator proxies to it: the cluster's authorizers (RBAC and the rest) decide. Client
// carries the server's CA and the credentials of the authorization kubeconfig; the
// server answers allowed, denied or neither (then the reason says why). A zero TTL
// means the default; a negative one caches nothing. Set the fields before the first
// Authorize and leave them; a SubjectAccessReview is safe for concurrent use then.
type SubjectAccessReview struct {
	Server   string
	Client   *http.Client
	AllowTTL time.Duration
	DenyTTL  time.Duration
	// Clock returns the time the cache expires answers by; nil means time.Now. Tests
	// set it to make answers expire without waiting.
	Clock func() time.Time

	mu    sync.Mutex
	cache map[string]sarAnswer
	order []string // cache keys, oldest first
}

// sarAnswer is one cached decision.
type sarAnswer struct {
	allowed bool
	reason  string
	expires time.Time
}

// Authorize implements Authorizer.
func (s *SubjectAccessReview) Authorize(ctx context.Context, a Attributes) (bool, string, error) {
	review := authorizationv1.SubjectAccessReview{
		TypeMeta: scheme.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"},
		Spec:     reviewSpec(a),
	}
	body, err := json.Marshal(review)
	if err != nil {
		return false, "", fmt.Errorf("authz: encoding a SubjectAccessReview: %w", err)
	}
	key := string(body)
	now := s.now()
	if ans, ok := s.lookup(key, now); ok {
		return ans.allowed, ans.reason, nil
	}
	status, err := s.ask(ctx, body)
	if err != nil {
		return false, "", err
	}
	ttl := ttlOr(s.DenyTTL, DefaultDenyCacheTTL)
	if status.Allowed {
		ttl = ttlOr(s.AllowTTL, DefaultAllowCacheTTL)
	}
	if ttl > 0 {
		s.store(key, sarAnswer{allowed: status.Allowed, reason: status.Reason, expires: now.Add(ttl)})
	}
	return status.Allowed, status.Reason, nil
}

func ttlOr(ttl, def time.Duration) time.Duration {
	if ttl == 0 {
		return def
	}
	return ttl
}

func (s *SubjectAccessReview) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

func (s *SubjectAccessReview) lookup(key string, now time.Time) (sarAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ans, ok := s.cache[key]
	if !ok || !now.Before(ans.expires) {
		return sarAnswer{}, false
	}
	return ans, true
}

// store remembers an answer, forgetting the oldest ones beyond sarCacheSize.
func (s *SubjectAccessReview) store(key string, ans sarAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]sarAnswer{}
	}
	if _, ok := s.cache[key]; !ok {
		s.order = append(s.order, key)
	}
	s.cache[key] = ans
	for len(s.cache) > sarCacheSize {
		delete(s.cache, s.order[0])
		s.order = s.order[1:]
	}
}

// ask POSTs a review and returns the server's status.
func (s *SubjectAccessReview) ask(ctx context.Context, body []byte) (*authorizationv1.SubjectAccessReviewStatus, error) {
	url := strings.TrimSuffix(s.Server, "/") + "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("authz: SubjectAccessReview: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authz: SubjectAccessReview: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSARResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("authz: SubjectAccessReview: reading the answer: %w", err)
	}
	if len(data) > maxSARResponseBytes {
		return nil, fmt.Errorf("authz: SubjectAccessReview: the answer is larger than %d bytes", maxSARResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("authz: SubjectAccessReview: the server answered %s", resp.Status)
	}
	var answer authorizationv1.SubjectAccessReview
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, fmt.Errorf("authz: SubjectAccessReview: decoding the answer: %w", err)
	}
	return &answer.Status, nil
}

// reviewSpec is the spec of the review of a, as kube's webhook authorizer writes it.
func reviewSpec(a Attributes) authorizationv1.SubjectAccessReviewSpec {
	var spec authorizationv1.SubjectAccessReviewSpec
	if u := a.User; u != nil {
		spec.User, spec.UID, spec.Groups = u.Name, u.UID, u.Groups
		if len(u.Extra) > 0 {
			spec.Extra = make(map[string]authorizationv1.ExtraValue, len(u.Extra))
			for k, v := range u.Extra {
				spec.Extra[k] = v
			}
		}
	}
	if a.ResourceRequest {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb, Group: a.APIGroup,
			Version: a.APIVersion, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
	} else {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return spec
}
