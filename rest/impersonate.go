package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// The impersonation headers of kube-apiserver (k8s.io/api authentication/v1), in Go's
// canonical header form.
const (
	ImpersonateUserHeader        = "Impersonate-User"
	ImpersonateGroupHeader       = "Impersonate-Group"
	ImpersonateUIDHeader         = "Impersonate-Uid"
	ImpersonateUserExtraPrefix   = "Impersonate-Extra-"
	serviceAccountUsernamePrefix = "system:serviceaccount:"
	allAuthenticatedGroup        = "system:authenticated"
	allUnauthenticatedGroup      = "system:unauthenticated"
)

// impersonation is one thing a request asks to act as, and the attributes its
// requester must be allowed ("impersonate") for it.
type impersonation struct {
	kind, namespace, name, apiVersion, extraKey string
	attrs                                       authz.Attributes
}

// String prints the impersonation as kube prints the v1.ObjectReference it uses for
// one (%v of the struct: kind, namespace, name, uid, apiVersion, resourceVersion,
// fieldPath), so that a 400 reads as kube-apiserver's.
func (i impersonation) String() string {
	return fmt.Sprintf("{%s %s %s %s %s %s %s}", i.kind, i.namespace, i.name, "", i.apiVersion, "", i.extraKey)
}

// impersonate does what k8s.io/apiserver's WithImpersonation filter does: a request
// with Impersonate-User (and optionally Impersonate-Group, Impersonate-Uid,
// Impersonate-Extra-KEY) is served as that user if its requester may "impersonate"
// each of them (users and groups in the core group, serviceaccounts for
// system:serviceaccount:NS:NAME users, uids and userextras/KEY in
// authentication.k8s.io); one refusal is 403. Groups, extras or a uid without a user
// are 400. The impersonated user gets system:authenticated (system:unauthenticated for
// system:anonymous) unless the groups name one of them, and a service account its
// groups when no group is named. The headers are removed from r. A request without
// impersonation headers keeps user.
func (h *Handler) impersonate(ctx context.Context, r *http.Request, user *authn.User) (*authn.User, *scheme.Status) {
	if !hasImpersonationHeader(r.Header) {
		return user, nil // nearly every request: no header to parse
	}
	wanted, st := impersonationsOf(r.Header)
	if st != nil || len(wanted) == 0 {
		return user, st
	}
	groupsGiven := len(r.Header.Values(ImpersonateGroupHeader)) > 0
	as := &authn.User{}
	for _, w := range wanted {
		a := w.attrs
		a.User, a.Verb, a.ResourceRequest = user, "impersonate", true
		if st := h.authorizeAttributes(ctx, a); st != nil {
			return nil, st
		}
		switch w.kind {
		case "ServiceAccount":
			as.Name = serviceAccountUsernamePrefix + w.namespace + ":" + w.name
			if !groupsGiven {
				as.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + w.namespace}
			}
		case "User":
			as.Name = w.name
		case "Group":
			as.Groups = append(as.Groups, w.name)
		case "UserExtra":
			if as.Extra == nil {
				as.Extra = map[string][]string{}
			}
			as.Extra[w.extraKey] = append(as.Extra[w.extraKey], w.name)
		case "UID":
			as.UID = w.name
		}
	}
	switch {
	case as.Name == authn.Anonymous.Name && !slices.Contains(as.Groups, allUnauthenticatedGroup):
		as.Groups = append(as.Groups, allUnauthenticatedGroup)
	case as.Name != authn.Anonymous.Name && !slices.Contains(as.Groups, allAuthenticatedGroup) && !slices.Contains(as.Groups, allUnauthenticatedGroup):
		as.Groups = append(as.Groups, allAuthenticatedGroup)
	}
	r.Header.Del(ImpersonateUserHeader)
	r.Header.Del(ImpersonateGroupHeader)
	r.Header.Del(ImpersonateUIDHeader)
	for name := range r.Header {
		if strings.HasPrefix(name, ImpersonateUserExtraPrefix) {
			r.Header.Del(name)
		}
	}
	return as, nil
}

// impersonationsOf reads the impersonation headers in kube's order: user, groups,
// extras (by header name, each value in order), uid.
// hasImpersonationHeader tells whether header has any Impersonate-* header, in one pass
// over its names (which net/http keeps canonical, as the constants are).
func hasImpersonationHeader(header http.Header) bool {
	for name := range header {
		if strings.HasPrefix(name, "Impersonate-") {
			return true
		}
	}
	return false
}

func impersonationsOf(header http.Header) ([]impersonation, *scheme.Status) {
	var out []impersonation
	user := header.Get(ImpersonateUserHeader)
	if user != "" {
		if ns, name, ok := splitServiceAccount(user); ok {
			out = append(out, impersonation{kind: "ServiceAccount", namespace: ns, name: name,
				attrs: authz.Attributes{Resource: "serviceaccounts", Namespace: ns, Name: name}})
		} else {
			out = append(out, impersonation{kind: "User", name: user, attrs: authz.Attributes{Resource: "users", Name: user}})
		}
	}
	for _, g := range header.Values(ImpersonateGroupHeader) {
		out = append(out, impersonation{kind: "Group", name: g, attrs: authz.Attributes{Resource: "groups", Name: g}})
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range header {
			if strings.HasPrefix(name, ImpersonateUserExtraPrefix) && !yield(name) {
				return
			}
		}
	})
	const authnV1 = "authentication.k8s.io/v1"
	for _, name := range names {
		key := strings.ToLower(name[len(ImpersonateUserExtraPrefix):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		for _, v := range header[name] {
			out = append(out, impersonation{kind: "UserExtra", name: v, apiVersion: authnV1, extraKey: key,
				attrs: authz.Attributes{APIGroup: "authentication.k8s.io", APIVersion: "v1", Resource: "userextras", Subresource: key, Name: v}})
		}
	}
	if uid := header.Get(ImpersonateUIDHeader); uid != "" {
		out = append(out, impersonation{kind: "UID", name: uid, apiVersion: authnV1,
			attrs: authz.Attributes{APIGroup: "authentication.k8s.io", APIVersion: "v1", Resource: "uids", Name: uid}})
	}
	if user == "" && len(out) > 0 {
		list := make([]string, len(out))
		for i, w := range out {
			list[i] = w.String()
		}
		return nil, NewBadRequest(fmt.Sprintf("requested [%s] without impersonating a user", strings.Join(list, " ")))
	}
	return out, nil
}

// splitServiceAccount reads "system:serviceaccount:NAMESPACE:NAME" as kube's
// serviceaccount.SplitUsername does: a DNS label namespace and a DNS subdomain name.
func splitServiceAccount(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, serviceAccountUsernamePrefix)
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 2 || len(validation.NameIsDNSLabel(parts[0], false)) > 0 || len(validation.NameIsDNSSubdomain(parts[1], false)) > 0 {
		return "", "", false
	}
	return parts[0], parts[1], true
}
