package rest

import (
	"errors"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// connect serves a connect subresource (one with ConnectMethods: pods/exec, pods/log,
// services/proxy) as kube-apiserver's ConnectResource does: kube's 405 for a method it
// does not accept, a 403 when ConnectVerb is not allowed too, then the registry's
// Connector with the query, the rest of the path and whether the client asks to
// upgrade; its answer is served as it is, its error as a Status.
func (rq *request) connect(sub *scheme.Subresource) {
	if !sub.Connects(rq.r.Method) {
		rq.h.writeStatus(rq.w, rq.r, errMethodNotAllowed())
		return
	}
	if sub.ConnectVerb != "" && sub.ConnectVerb != rq.info.Verb {
		if err := rq.authorizeConnectVerb(sub.ConnectVerb); err != nil {
			rq.fail(err)
			return
		}
	}
	c := registry.ConnectRequest{Method: rq.r.Method, Query: rq.query, Upgrade: isUpgradeRequest(rq.r)}
	if sub.ConnectPath && len(rq.info.Parts) > 3 {
		c.Path = "/" + strings.Join(rq.info.Parts[3:], "/")
		if strings.HasSuffix(rq.r.URL.Path, "/") {
			c.Path += "/"
		}
	}
	out, err := rq.h.reg.Connect(rq.ctx, rq.lifecycle(false), rq.info.Name, c)
	if err != nil {
		rq.fail(err)
		return
	}
	if out == nil {
		rq.fail(apierrors.NewInternalError(errNoConnectAnswer))
		return
	}
	code := out.Code
	if code == 0 {
		code = http.StatusOK
	}
	if out.ContentType != "" {
		rq.w.Header().Set("Content-Type", out.ContentType)
	}
	rq.w.WriteHeader(code)
	if code != http.StatusNoContent {
		_, _ = rq.w.Write(out.Body)
	}
}

// errNoConnectAnswer is the 500 of a Connector that answered neither a body nor an error.
var errNoConnectAnswer = errors.New("the subresource's connector answered nothing")

// authorizeConnectVerb asks the Authorizer whether the request's user may also verb
// the subresource, as kube's pods/exec, attach and portforward do since
// AuthorizePodWebsocketUpgradeCreatePermission: nil when allowed, else kube's 403
// (`pods "p" is forbidden: ` and the authorizer's reason, the resource without its
// subresource), or the 500 of an authorizer that could not decide.
func (rq *request) authorizeConnectVerb(verb string) error {
	a := attributesOf(rq.info, rq.user)
	a.Verb = verb
	allowed, reason, err := rq.h.opts.Authorizer.Authorize(rq.ctx, a)
	if err != nil && !allowed {
		rq.h.log.Warn("rest: authorization failed", "path", a.Path, "err", err)
		return apierrors.NewInternalError(errors.New("authorization failed"))
	}
	if allowed {
		return nil
	}
	return apierrors.NewForbidden(scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Name, errors.New(reason))
}

// isUpgradeRequest is apimachinery's httpstream.IsUpgradeRequest: a Connection header
// that names upgrade.
func isUpgradeRequest(r *http.Request) bool {
	for _, h := range r.Header.Values("Connection") {
		if strings.Contains(strings.ToLower(h), "upgrade") {
			return true
		}
	}
	return false
}
