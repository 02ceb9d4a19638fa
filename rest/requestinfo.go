package rest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/storage"
)

// RequestInfo is what the Handler parsed from a request's method, path and query.
type RequestInfo struct {
	// IsResourceRequest is true for paths under /api/v1 and /apis/GROUP/VERSION that name
	// a resource.
	IsResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb is get, list, watch, create, update, patch, delete or deletecollection for
	// resource requests, the lowercased HTTP method otherwise.
	Verb string
	// APIPrefix is "api" or "apis" for resource requests.
	APIPrefix   string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the group version (without a "watch" prefix).
	Parts []string
	// query is the parsed URL query (nil without one): parsed here once for every step
	// of the request that reads it.
	query url.Values
}

// ParseRequestInfo reads verb, group, version, namespace, resource, name and
// subresource from a request, the way kube-apiserver's RequestInfoFactory does:
//
//	/api/v1/RES, /apis/G/V/RES                         collection (cluster scope or all namespaces)
//	/apis/G/V/namespaces/NS/RES[/NAME[/SUBRESOURCE]]   namespaced
//	/apis/G/V/RES/NAME[/SUBRESOURCE]                   cluster-scoped
//	/apis/G/V/watch/...                                legacy watch prefix (verb watch)
//
// The verb follows the method (GET get, POST create, PUT update, PATCH patch, DELETE
// delete), with GET on a collection being list (watch with watch=true or 1) and DELETE on
// a collection deletecollection. For list and watch, a field selector metadata.name=X
// sets Name. Every other path is a non-resource request whose verb is the lowercased
// method.
func ParseRequestInfo(r *http.Request) *RequestInfo {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	if r.URL.RawQuery != "" {
		info.query = r.URL.Query()
	}
	parts := splitPath(r.URL.Path)
	if len(parts) < 3 {
		return info
	}
	switch parts[0] {
	case "api":
		info.APIPrefix, info.APIVersion = "api", parts[1]
		parts = parts[2:]
	case "apis":
		if len(parts) < 4 {
			return info
		}
		info.APIPrefix, info.APIGroup, info.APIVersion = "apis", parts[1], parts[2]
		parts = parts[3:]
	default:
		return info
	}
	info.IsResourceRequest = true
	switch r.Method {
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodGet, http.MethodHead:
		info.Verb = "get"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
	default:
		info.Verb = ""
	}
	if parts[0] == "watch" {
		parts = parts[1:]
		if info.Verb == "get" {
			info.Verb = "watch"
		}
	}
	if len(parts) > 0 && parts[0] == "namespaces" {
		if len(parts) > 1 {
			info.Namespace = parts[1]
			// Like kube-apiserver, status and finalize after a name are subresources
			// of the namespace, not resources in it.
			if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
				parts = parts[2:]
			}
		}
	}
	info.Parts = parts
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
		if isTrue(info.query.Get("watch")) {
			info.Verb = "watch"
		}
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	if (info.Verb == "list" || info.Verb == "watch") && info.Name == "" {
		if fs := info.query.Get("fieldSelector"); fs != "" {
			if sel, err := storage.ParseFieldSelector(fs); err == nil {
				if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
					info.Name = name
				}
			}
		}
	}
	return info
}

func isTrue(s string) bool {
	b, err := strconv.ParseBool(s)
	return err == nil && b
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

type ctxKey int

const (
	requestInfoKey ctxKey = iota
)

// WithRequestInfo returns a context carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the RequestInfo the Handler put in a request's context.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}
