package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// serve is the one entry of every request: recover, parse, authenticate, authorize, route.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	rw := &responseWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("rest: panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rw.wroteHeader {
				h.writeStatus(rw, r, NewInternalError(fmt.Errorf("%v", p)))
			}
		}
	}()

	info := ParseRequestInfo(r)
	ctx := WithRequestInfo(r.Context(), info)

	user, st := h.authenticate(r)
	if st != nil {
		h.writeStatus(rw, r, st)
		return
	}
	ctx = WithUser(ctx, user)
	r = r.WithContext(ctx)

	if st := h.authorize(ctx, info, user); st != nil {
		h.writeStatus(rw, r, st)
		return
	}

	if !info.IsResourceRequest {
		h.serveNonResource(rw, r)
		return
	}
	h.serveResource(rw, r, info)
}

// responseWriter remembers whether the header went out, so that a panic after it does
// not write a second one, and passes Flush through for watches.
type responseWriter struct {
	http.ResponseWriter
	wroteHeader bool
}

func (w *responseWriter) WriteHeader(code int) {
	w.wroteHeader = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (h *Handler) authenticate(r *http.Request) (*User, *scheme.Status) {
	if h.opts.Authenticator == nil {
		u := Anonymous
		return &u, nil
	}
	user, ok, err := h.opts.Authenticator.Authenticate(r)
	if err != nil {
		h.log.Warn("rest: authentication failed", "path", r.URL.Path, "err", err)
	}
	if err != nil || !ok || user == nil {
		return nil, NewUnauthorized()
	}
	return user, nil
}

func (h *Handler) authorize(ctx context.Context, info *RequestInfo, user *User) *scheme.Status {
	if h.opts.Authorizer == nil {
		return nil
	}
	a := attributesOf(info, user)
	allowed, reason, err := h.opts.Authorizer.Authorize(ctx, a)
	if allowed {
		return nil
	}
	if err != nil {
		h.log.Warn("rest: authorization failed", "path", a.Path, "err", err)
		if reason == "" {
			reason = err.Error()
		}
	}
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	if !a.ResourceRequest {
		gr = scheme.GroupResource{}
	}
	return NewForbidden(gr, a.Name, errors.New(msg))
}

func attributesOf(info *RequestInfo, user *User) Attributes {
	return Attributes{
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

// forbiddenMessage words a denial like kube-apiserver.
func forbiddenMessage(a Attributes) string {
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

// serveNonResource answers health checks and hands discovery paths to Options.Discovery.
func (h *Handler) serveNonResource(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	for _, hp := range []string{"/healthz", "/livez", "/readyz"} {
		if p == hp || strings.HasPrefix(p, hp+"/") {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				h.writeStatus(w, r, errMethodNotAllowed())
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("ok"))
			return
		}
	}
	if h.opts.Discovery != nil {
		h.opts.Discovery.ServeHTTP(w, r)
		return
	}
	h.writeStatus(w, r, errPathNotFound())
}
