package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/rest"
)

// kubeRequestInfo is what k8s.io/apiserver's RequestInfoFactory (APIPrefixes api and
// apis, api groupless, as kube-apiserver configures it) returns for a request, from
// the cases of its TestGetAPIRequestInfo, TestGetNonAPIRequestInfo and
// TestSelectorParsing (pkg/endpoints/request/requestinfo_test.go) and from reading
// NewRequestInfo where a case is apikit's own.
type kubeRequestInfo struct {
	resource                         bool
	verb, prefix, group, version, ns string
	res, sub, name                   string
	parts                            []string
}

func TestParseRequestInfo_MatchesKubeRequestInfoFactory(t *testing.T) {
	tests := []struct {
		name, method, url string
		want              kubeRequestInfo
		// differs names how apikit's answer departs from kube's, and apikit is that
		// answer: the case holds it, so that any change to it shows here (one to kube's
		// answer asks for the note to go).
		differs string
		apikit  *kubeRequestInfo
	}{
		// resource paths
		{"namespaces collection is a cluster list", "GET", "/api/v1/namespaces",
			kubeRequestInfo{true, "list", "api", "", "v1", "", "namespaces", "", "", []string{"namespaces"}}, "", nil},
		{"a namespace is its own namespace", "GET", "/api/v1/namespaces/other",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "namespaces", "", "other", []string{"namespaces", "other"}}, "", nil},
		{"namespaced list", "GET", "/api/v1/namespaces/other/pods",
			kubeRequestInfo{true, "list", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"namespaced get", "GET", "/api/v1/namespaces/other/pods/foo",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}}, "", nil},
		{"HEAD is get", "HEAD", "/api/v1/namespaces/other/pods/foo",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}}, "", nil},
		{"list across namespaces", "GET", "/api/v1/pods",
			kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		{"HEAD on a collection is list", "HEAD", "/api/v1/pods",
			kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		{"trailing slash is ignored", "GET", "/api/v1/namespaces/other/pods/",
			kubeRequestInfo{true, "list", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},

		// special verbs
		{"proxy prefix is the proxy verb", "GET", "/api/v1/proxy/namespaces/other/pods/foo",
			kubeRequestInfo{true, "proxy", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}},
			"the proxy path prefix is not a verb: resource proxy, verb get",
			&kubeRequestInfo{true, "get", "api", "", "v1", "", "proxy", "other", "namespaces", []string{"proxy", "namespaces", "other", "pods", "foo"}}},
		{"proxy takes no subresource", "GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource",
			kubeRequestInfo{true, "proxy", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo", "subpath", "not", "a", "subresource"}},
			"the proxy path prefix is not a verb: resource proxy, verb get",
			&kubeRequestInfo{true, "get", "api", "", "v1", "", "proxy", "other", "namespaces", []string{"proxy", "namespaces", "other", "pods", "foo", "subpath", "not", "a", "subresource"}}},
		{"watch prefix on a collection", "GET", "/api/v1/watch/pods",
			kubeRequestInfo{true, "watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch=true", "GET", "/api/v1/pods?watch=true",
			kubeRequestInfo{true, "watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch=false is list", "GET", "/api/v1/pods?watch=false",
			kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch prefix in a namespace", "GET", "/api/v1/watch/namespaces/other/pods",
			kubeRequestInfo{true, "watch", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch=1", "GET", "/api/v1/namespaces/other/pods?watch=1",
			kubeRequestInfo{true, "watch", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch=0 is list", "GET", "/api/v1/namespaces/other/pods?watch=0",
			kubeRequestInfo{true, "list", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"watch=FALSE is list", "GET", "/api/v1/pods?watch=FALSE",
			kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}, "", nil},
		// kube's query decoding (runtime.Convert_Slice_string_To_bool) reads every
		// value but "0" and "false" as true.
		{"watch=yes is watch", "GET", "/api/v1/pods?watch=yes",
			kubeRequestInfo{true, "watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}},
			"strconv.ParseBool reads yes as not true: verb list",
			&kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"empty watch= is watch", "GET", "/api/v1/pods?watch=",
			kubeRequestInfo{true, "watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}},
			"strconv.ParseBool reads the empty value as not true: verb list",
			&kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"watch=f is watch", "GET", "/api/v1/pods?watch=f",
			kubeRequestInfo{true, "watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}},
			"strconv.ParseBool reads f as false: verb list",
			&kubeRequestInfo{true, "list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"watch on a named object keeps get", "GET", "/api/v1/namespaces/other/pods/foo?watch=true",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}}, "", nil},
		{"watch prefix on one object", "GET", "/apis/group/version/watch/resource/name",
			kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "name", []string{"resource", "name"}}, "", nil},
		// kube takes the verb from the prefix whatever the method.
		{"watch prefix with DELETE is still watch", "DELETE", "/api/v1/watch/namespaces/other/pods",
			kubeRequestInfo{true, "watch", "api", "", "v1", "other", "pods", "", "", []string{"pods"}},
			"only GET and HEAD become watch: verb deletecollection",
			&kubeRequestInfo{true, "deletecollection", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}},
		{"watch prefix with POST is still watch", "POST", "/api/v1/watch/namespaces/other/pods",
			kubeRequestInfo{true, "watch", "api", "", "v1", "other", "pods", "", "", []string{"pods"}},
			"only GET and HEAD become watch: verb create",
			&kubeRequestInfo{true, "create", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}},

		// subresource identification
		{"status subresource", "GET", "/api/v1/namespaces/other/pods/foo/status",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "pods", "status", "foo", []string{"pods", "foo", "status"}}, "", nil},
		{"parts past the subresource are kept", "GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath",
			kubeRequestInfo{true, "get", "api", "", "v1", "other", "pods", "proxy", "foo", []string{"pods", "foo", "proxy", "subpath"}}, "", nil},
		{"namespace finalize is a subresource of the namespace", "PUT", "/api/v1/namespaces/other/finalize",
			kubeRequestInfo{true, "update", "api", "", "v1", "other", "namespaces", "finalize", "other", []string{"namespaces", "other", "finalize"}}, "", nil},
		{"namespace status is a subresource of the namespace", "PUT", "/api/v1/namespaces/other/status",
			kubeRequestInfo{true, "update", "api", "", "v1", "other", "namespaces", "status", "other", []string{"namespaces", "other", "status"}}, "", nil},
		{"scale subresource in a named group", "PATCH", "/apis/apps/v1/namespaces/other/deployments/web/scale",
			kubeRequestInfo{true, "patch", "apis", "apps", "v1", "other", "deployments", "scale", "web", []string{"deployments", "web", "scale"}}, "", nil},
		{"cluster-scoped subresource", "PUT", "/apis/toys.example.com/v1/warehouses/north/status",
			kubeRequestInfo{true, "update", "apis", "toys.example.com", "v1", "", "warehouses", "status", "north", []string{"warehouses", "north", "status"}}, "", nil},

		// verb identification
		{"PATCH is patch", "PATCH", "/api/v1/namespaces/other/pods/foo",
			kubeRequestInfo{true, "patch", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}}, "", nil},
		{"DELETE on an object is delete", "DELETE", "/api/v1/namespaces/other/pods/foo",
			kubeRequestInfo{true, "delete", "api", "", "v1", "other", "pods", "", "foo", []string{"pods", "foo"}}, "", nil},
		{"POST is create", "POST", "/api/v1/namespaces/other/pods",
			kubeRequestInfo{true, "create", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"PUT is update", "PUT", "/apis/toys.example.com/v1/namespaces/other/widgets/w",
			kubeRequestInfo{true, "update", "apis", "toys.example.com", "v1", "other", "widgets", "", "w", []string{"widgets", "w"}}, "", nil},
		{"an unknown method has no verb", "OPTIONS", "/api/v1/namespaces/other/pods",
			kubeRequestInfo{true, "", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},

		// deletecollection verb identification
		{"DELETE on a cluster collection", "DELETE", "/api/v1/nodes",
			kubeRequestInfo{true, "deletecollection", "api", "", "v1", "", "nodes", "", "", []string{"nodes"}}, "", nil},
		{"DELETE on the namespaces collection", "DELETE", "/api/v1/namespaces",
			kubeRequestInfo{true, "deletecollection", "api", "", "v1", "", "namespaces", "", "", []string{"namespaces"}}, "", nil},
		{"DELETE on a namespaced collection", "DELETE", "/api/v1/namespaces/other/pods",
			kubeRequestInfo{true, "deletecollection", "api", "", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"DELETE on a named group collection", "DELETE", "/apis/extensions/v1/namespaces/other/pods",
			kubeRequestInfo{true, "deletecollection", "apis", "extensions", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},

		// api group and version identification
		{"named group", "POST", "/apis/extensions/v1/namespaces/other/pods",
			kubeRequestInfo{true, "create", "apis", "extensions", "v1", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"beta version", "POST", "/apis/extensions/v1beta3/namespaces/other/pods",
			kubeRequestInfo{true, "create", "apis", "extensions", "v1beta3", "other", "pods", "", "", []string{"pods"}}, "", nil},
		{"groupless other version", "GET", "/api/version/resource",
			kubeRequestInfo{true, "list", "api", "", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"group list", "GET", "/apis/batch/v1/job",
			kubeRequestInfo{true, "list", "apis", "batch", "v1", "", "job", "", "", []string{"job"}}, "", nil},
		{"group get", "GET", "/apis/batch/v1/job/foo",
			kubeRequestInfo{true, "get", "apis", "batch", "v1", "", "job", "", "foo", []string{"job", "foo"}}, "", nil},
		{"group subresource", "GET", "/apis/batch/v1/job/foo/scale",
			kubeRequestInfo{true, "get", "apis", "batch", "v1", "", "job", "scale", "foo", []string{"job", "foo", "scale"}}, "", nil},
		{"groupless subresource", "GET", "/api/version/resource/name/subresource",
			kubeRequestInfo{true, "get", "api", "", "version", "", "resource", "subresource", "name", []string{"resource", "name", "subresource"}}, "", nil},

		// field selectors that name one object (TestSelectorParsing)
		{"no selector", "GET", "/apis/group/version/resource",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"metadata.name selector names the object", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "name1", []string{"resource"}}, "", nil},
		{"metadata.name selector with watch", "GET", "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1",
			kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "name1", []string{"resource"}}, "", nil},
		{"metadata.name== selector", "GET", "/apis/group/version/namespaces/ns/resource?fieldSelector=metadata.name%3D%3Dname1",
			kubeRequestInfo{true, "list", "apis", "group", "version", "ns", "resource", "", "name1", []string{"resource"}}, "", nil},
		{"another field selector names nothing", "GET", "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"invalid selector names nothing", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"invalid selector with watch names nothing", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true",
			kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"invalid selector with watch=false names nothing", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"selector does not name the object of a deletecollection", "DELETE", "/apis/group/version/resource?fieldSelector=metadata.name=name1",
			kubeRequestInfo{true, "deletecollection", "apis", "group", "version", "", "resource", "", "", []string{"resource"}}, "", nil},
		{"repeated selector: the first counts", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar",
			kubeRequestInfo{true, "list", "apis", "group", "version", "", "resource", "", "foo", []string{"resource"}}, "", nil},
		{"selector on a get is ignored", "GET", "/apis/group/version/resource/name?fieldSelector=metadata.name=other",
			kubeRequestInfo{true, "get", "apis", "group", "version", "", "resource", "", "name", []string{"resource", "name"}}, "", nil},
		{"selector on a watch prefix is not parsed", "GET", "/apis/group/version/watch/resource?fieldSelector=metadata.name=foo",
			kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "", []string{"resource"}},
			"the selector names the object of a watch-prefix request too: name foo",
			&kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "foo", []string{"resource"}}},
		{"selector on a watch prefix item keeps the path's name", "GET", "/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo",
			kubeRequestInfo{true, "watch", "apis", "group", "version", "", "resource", "", "name", []string{"resource", "name"}}, "", nil},
		// kube keeps a selected name only if it is a valid path segment
		// (content.IsPathSegmentName: not "." or "..", no "/" or "%").
		{"selected name with a slash names nothing", "GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Da%2Fb",
			kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "", []string{"secrets"}},
			`the selected name is not checked as a path segment: name "a/b"`,
			&kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "a/b", []string{"secrets"}}},
		{"selected name .. names nothing", "GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3D..",
			kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "", []string{"secrets"}},
			`the selected name is not checked as a path segment: name ".."`,
			&kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "..", []string{"secrets"}}},
		// kube decodes every list option before it reads the selector; one that does not
		// decode (limit=abc) drops the name.
		{"a list option that does not decode drops the selected name", "GET", "/api/v1/namespaces/ns/secrets?limit=abc&fieldSelector=metadata.name%3Ds",
			kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "", []string{"secrets"}},
			`other list options are not decoded first: name "s"`,
			&kubeRequestInfo{true, "list", "api", "", "v1", "ns", "secrets", "", "s", []string{"secrets"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			got := rest.ParseRequestInfo(req)
			if got.Path != req.URL.Path {
				t.Errorf("Path %q, want the URL path %q", got.Path, req.URL.Path)
			}
			switch {
			case tt.differs != "" && sameRequestInfo(got, tt.want):
				t.Errorf("%s %s now parses as kube's RequestInfoFactory does: drop the note %q", tt.method, tt.url, tt.differs)
			case tt.differs != "":
				if !sameRequestInfo(got, *tt.apikit) {
					t.Errorf("%s %s (a known difference from kube: %s):\n got %s\nheld %s", tt.method, tt.url, tt.differs, describe(got), describeWant(*tt.apikit))
				}
				t.Logf("differs from kube (%s): kube %s", tt.differs, describeWant(tt.want))
			case !sameRequestInfo(got, tt.want):
				t.Errorf("%s %s:\n got %s\nkube %s", tt.method, tt.url, describe(got), describeWant(tt.want))
			}
		})
	}
}

func sameRequestInfo(got *rest.RequestInfo, w kubeRequestInfo) bool {
	return got.IsResourceRequest == w.resource && got.Verb == w.verb && got.APIPrefix == w.prefix &&
		got.APIGroup == w.group && got.APIVersion == w.version && got.Namespace == w.ns &&
		got.Resource == w.res && got.Subresource == w.sub && got.Name == w.name &&
		slices.Equal(got.Parts, w.parts)
}

func describe(got *rest.RequestInfo) string {
	return describeWant(kubeRequestInfo{got.IsResourceRequest, got.Verb, got.APIPrefix, got.APIGroup, got.APIVersion,
		got.Namespace, got.Resource, got.Subresource, got.Name, got.Parts})
}

func describeWant(w kubeRequestInfo) string {
	return fmt.Sprintf("resource=%v verb=%q prefix=%q group=%q version=%q ns=%q res=%q sub=%q name=%q parts=%q",
		w.resource, w.verb, w.prefix, w.group, w.version, w.ns, w.res, w.sub, w.name, w.parts)
}

func TestParseRequestInfo_NonResourcePathsKeepTheLowercasedMethod(t *testing.T) {
	tests := []struct{ name, method, url string }{
		{"root", "GET", "/"},
		{"api prefix alone", "GET", "/api"},
		{"groupless without resource", "GET", "/api/v1"},
		{"just apiversion with slash", "GET", "/api/version/"},
		{"group without enough steps", "GET", "/apis/extensions/v1beta1"},
		{"group without enough steps, slash", "GET", "/apis/extensions/v1beta1/"},
		{"just prefix, group, version", "GET", "/apis/group/version/"},
		{"missing api group", "GET", "/apis/version/resource"},
		{"bad prefix", "GET", "/badprefix/version/resource"},
		{"bad root", "GET", "/not-api/version/resource"},
		{"group discovery", "GET", "/apis/toys.example.com"},
		{"health", "GET", "/healthz"},
		{"health check", "GET", "/readyz/ping"},
		{"openapi", "GET", "/openapi/v3/apis/apps/v1"},
		{"version", "GET", "/version"},
		{"metrics", "GET", "/metrics"},
		{"POST to a non-resource path", "POST", "/logs/kube.log"},
		{"HEAD stays head", "HEAD", "/healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			got := rest.ParseRequestInfo(req)
			if got.IsResourceRequest {
				t.Fatalf("%s %s parsed as a resource request: %+v", tt.method, tt.url, *got)
			}
			want := map[string]string{http.MethodGet: "get", http.MethodPost: "post", http.MethodHead: "head"}[tt.method]
			if got.Verb != want || got.Path != req.URL.Path {
				t.Errorf("verb %q path %q, want %q %q", got.Verb, got.Path, want, req.URL.Path)
			}
			if got.Resource != "" || got.Name != "" || got.Namespace != "" || got.APIGroup != "" {
				t.Errorf("non-resource request carries resource fields: %+v", *got)
			}
		})
	}
}
