package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/scheme"
)

// PublicInfoPaths are served to anyone, with or without credentials, whatever the
// Authorizer says, as kube-apiserver's system:public-info-viewer role makes them: a
// load balancer or a kubelet probe checks health without a token. A path is public when
// it is one of these or below one of the first three.
var PublicInfoPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}

// isPublicInfo tells whether path is one of PublicInfoPaths.
func isPublicInfo(path string) bool {
	for _, p := range PublicInfoPaths[:3] {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return path == "/version" || path == "/version/"
}

// authenticate establishes the user of r: the Authenticator's, or Anonymous when
// AllowAnonymous lets in a request without accepted credentials. A public path is
// served to a request without credentials too. A bearer token over plain HTTP is
// refused unless AllowBearerTokensOverHTTP.
func (h *Handler) authenticate(r *http.Request, public bool) (*authn.User, *scheme.Status) {
	if r.TLS == nil && !h.opts.AllowBearerTokensOverHTTP && hasBearerToken(r) {
		return nil, NewUnauthorized()
	}
	if h.opts.Authenticator != nil {
		user, ok, err := h.opts.Authenticator.Authenticate(r)
		if err != nil {
			h.log.Warn("rest: authentication failed", "path", r.URL.Path, "err", err)
			return nil, NewUnauthorized()
		}
		if ok && user != nil {
			return user, nil
		}
	}
	if h.opts.AllowAnonymous || public {
		u := authn.Anonymous
		return &u, nil
	}
	return nil, NewUnauthorized()
}

// hasBearerToken tells whether r carries a bearer token (case-insensitive scheme, as
// kube's bearer token authenticator reads it).
func hasBearerToken(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	return len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ")
}

// The audit annotations of the authorization decision, keys and values as
// kube-apiserver's WithAuthorization filter records them.
const (
	auditDecisionKey    = "authorization.k8s.io/decision"
	auditReasonKey      = "authorization.k8s.io/reason"
	auditDecisionAllow  = "allow"
	auditDecisionForbid = "forbid"
	auditReasonError    = "internal error"
)

// authorize asks the Authorizer whether the request may proceed (nil when allowed, else
// kube's 403 or 500) and records the decision in its audit event as kube-apiserver's
// WithAuthorization filter does: authorization.k8s.io/decision "allow" or "forbid" with
// authorization.k8s.io/reason, the Authorizer's reason (recorded even when empty, as
// kube records it), or only the reason "internal error" when the Authorizer failed
// without allowing. The events sent from then on carry them; RequestReceived, sent
// before authorization, does not. Impersonation's checks go through
// authorizeAttributes and are not recorded: kube's impersonation filter asks its
// authorizer directly, so the decision annotated is the request's own, as the
// impersonated user.
func (h *Handler) authorize(ctx context.Context, info *RequestInfo, user *authn.User) *scheme.Status {
	a := attributesOf(info, user)
	allowed, reason, err := h.opts.Authorizer.Authorize(ctx, a)
	if rec := h.auditRecordIn(ctx); rec != nil {
		switch {
		case allowed:
			rec.annotate(auditDecisionKey, auditDecisionAllow, auditReasonKey, reason)
		case err != nil:
			rec.annotate(auditReasonKey, auditReasonError)
		default:
			rec.annotate(auditDecisionKey, auditDecisionForbid, auditReasonKey, reason)
		}
	}
	return h.decisionStatus(a, allowed, reason, err)
}

// authorizeAttributes asks the Authorizer about a: nil when allowed, else kube's 403.
func (h *Handler) authorizeAttributes(ctx context.Context, a authz.Attributes) *scheme.Status {
	allowed, reason, err := h.opts.Authorizer.Authorize(ctx, a)
	return h.decisionStatus(a, allowed, reason, err)
}

// decisionStatus answers the Authorizer's decision about a: nil when allowed, a 500 when
// it failed without allowing, else kube's 403 with the reason appended.
func (h *Handler) decisionStatus(a authz.Attributes, allowed bool, reason string, err error) *scheme.Status {
	if allowed {
		return nil
	}
	if err != nil {
		// As kube-apiserver: an authorizer that could not decide is a 500, not a 403.
		// Its error (which may name the delegate's URL) goes to the log only.
		h.log.Warn("rest: authorization failed", "path", a.Path, "err", err)
		return NewInternalError(errors.New("authorization failed"))
	}
	// kube-apiserver escapes the HTML-significant characters of the attributes (not of
	// the authorizer's reason), so that a name cannot smuggle markup into a client's page.
	msg := htmlSanitizer.Replace(forbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	gr := scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	if !a.ResourceRequest {
		gr = scheme.GroupResource{}
	}
	return NewForbidden(gr, a.Name, errors.New(msg))
}

func attributesOf(info *RequestInfo, user *authn.User) authz.Attributes {
	return authz.Attributes{
		User:            user,
		Verb:            info.Verb,
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		Path:            info.Path,
		ResourceRequest: info.IsResourceRequest,
	}
}

// htmlSanitizer escapes what kube-apiserver escapes in a denial's message.
var htmlSanitizer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// forbiddenMessage words a denial like kube-apiserver.
func forbiddenMessage(a authz.Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, res, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, res, a.APIGroup)
}
