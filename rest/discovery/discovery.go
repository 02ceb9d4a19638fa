package discovery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// Media type parameters of aggregated discovery, in the order kube-apiserver writes them
// into Content-Type (g, v, as).
const (
	// AggregatedGroup is the g= parameter and the group of APIGroupDiscoveryList.
	AggregatedGroup = "apidiscovery.k8s.io"
	// AggregatedKind is the as= parameter and the kind of the aggregated document.
	AggregatedKind = "APIGroupDiscoveryList"
)

// AggregatedVersions are the versions of aggregated discovery served, most preferred first.
var AggregatedVersions = []string{"v2", "v2beta1"}

// SubresourceVerbs are the verbs of the status and scale subresources.
var SubresourceVerbs = []string{"get", "patch", "update"}

// Options configures the handler New returns. The zero value serves the defaults.
type Options struct {
	// Version is what /version answers; empty fields take the values of DefaultVersion.
	Version VersionInfo
	// ServerAddress is the serverAddress /api reports for clientCIDR 0.0.0.0/0; empty
	// means the Host of each request.
	ServerAddress string
	// DisableOpenAPIPaths leaves the paths of the OpenAPI documents empty. By default each
	// resource gets path items whose operations carry x-kubernetes-group-version-kind and
	// the query parameters the REST layer honours: kubectl looks for the fieldValidation
	// parameter of the PATCH operation before it sends fieldValidation=Strict.
	DisableOpenAPIPaths bool
	// LazyOpenAPI builds the OpenAPI documents on the first /openapi request instead of
	// in New, which then costs a tenth as much (for in-process test servers that must
	// start fast). A build error is then answered with a 500 Status on /openapi paths
	// rather than returned by New.
	LazyOpenAPI bool
}

// DefaultVersion returns the /version defaults: Kubernetes 1.32 (so that kubectl 1.31 to
// 1.33 print no version-skew warning), marked as apikit in build metadata ("+apikit", not
// a pre-release suffix, so version constraints such as ">=1.28.0" still match), and the
// running Go toolchain and platform.
func DefaultVersion() VersionInfo {
	return VersionInfo{
		Major:      "1",
		Minor:      "32",
		GitVersion: "v1.32.0+apikit",
		BuildDate:  "1970-01-01T00:00:00Z",
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// handler serves discovery (/api, /apis, /apis/GROUP, /apis/GROUP/VERSION, /api/v1 and
// aggregated discovery on /api and /apis), /version, /openapi/v2 and /openapi/v3. Every
// document is built once by New; serving only negotiates and writes bytes.
type handler struct {
	serverAddress string
	coreVersions  []string

	groupList     document            // /apis
	groups        map[string]document // /apis/GROUP by group
	resourceLists map[string]document // by "GROUP/VERSION", "v1" for the core group
	// aggregated[prefix][version]: prefix "api" or "apis", version "v2" or "v2beta1".
	aggregated map[string]map[string]document
	version    document

	// The OpenAPI documents, built by buildOpenAPI under openAPIOnce.
	openAPIOnce      sync.Once
	buildOpenAPIOnce func()
	openAPIErr       error
	openAPIV2        document
	openAPIIndex     document
	openAPIV3        map[string]document // by openapi.DiscoveryPath
	lastModified     time.Time
}

// document is one response body, encoded once, with its ETag (quoted) when it has one.
type document struct {
	data []byte
	etag string
}

// New builds the discovery documents and OpenAPI documents of every resource registered
// in s. Register everything in s before calling New; later registrations are not seen.
func New(s *scheme.Scheme, opts Options) (http.Handler, error) {
	h := &handler{
		serverAddress: opts.ServerAddress,
		groups:        map[string]document{},
		resourceLists: map[string]document{},
		aggregated:    map[string]map[string]document{},
		lastModified:  time.Now().UTC().Truncate(time.Second),
	}
	model := buildModel(s)
	if err := h.buildDiscovery(model); err != nil {
		return nil, err
	}
	if err := h.buildVersion(opts.Version); err != nil {
		return nil, err
	}
	h.buildOpenAPIOnce = func() {
		h.openAPIErr = h.buildOpenAPI(s, model, !opts.DisableOpenAPIPaths)
	}
	if !opts.LazyOpenAPI {
		if err := h.openAPI(); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// ServeHTTP answers GET and HEAD on the paths New serves, and a NotFound Status on
// any other path.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeStatus(w, http.StatusMethodNotAllowed, scheme.StatusReasonMethodNotAllowed,
			fmt.Sprintf("the server does not allow this method on the requested resource (%s %s)", r.Method, r.URL.Path))
		return
	}
	switch {
	case p == "/api":
		h.serveAPI(w, r)
	case p == "/apis":
		h.serveAPIs(w, r)
	case p == "/version":
		serveJSONDocument(w, r, h.version)
	case p == "/openapi/v2", p == "/openapi/v3", strings.HasPrefix(p, "/openapi/v3/"):
		if err := h.openAPI(); err != nil {
			writeStatus(w, http.StatusInternalServerError, scheme.StatusReasonInternalError, err.Error())
			return
		}
		switch {
		case p == "/openapi/v2":
			h.serveOpenAPIV2(w, r)
		case p == "/openapi/v3":
			h.serveOpenAPIIndex(w, r)
		default:
			h.serveOpenAPIV3(w, r, strings.TrimPrefix(p, "/openapi/v3/"))
		}
	case strings.HasPrefix(p, "/api/"):
		rest := strings.TrimPrefix(p, "/api/")
		if doc, ok := h.resourceLists[rest]; ok && !strings.Contains(rest, "/") {
			h.servePlain(w, r, doc)
			return
		}
		notFound(w)
	case strings.HasPrefix(p, "/apis/"):
		rest := strings.TrimPrefix(p, "/apis/")
		group, version, hasVersion := strings.Cut(rest, "/")
		if !hasVersion {
			if doc, ok := h.groups[group]; ok {
				h.servePlain(w, r, doc)
				return
			}
		} else if doc, ok := h.resourceLists[group+"/"+version]; ok && group != "" {
			h.servePlain(w, r, doc)
			return
		}
		notFound(w)
	default:
		notFound(w)
	}
}

// openAPI builds the OpenAPI documents the first time it is called and returns the
// build's error, if any.
func (h *handler) openAPI() error {
	h.openAPIOnce.Do(h.buildOpenAPIOnce)
	return h.openAPIErr
}

// serveAPI answers /api: APIVersions, or the core group as aggregated discovery.
func (h *handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	if h.serveAggregated(w, r, "api") {
		return
	}
	addr := h.serverAddress
	if addr == "" {
		addr = r.Host
	}
	v := APIVersions{Kind: "APIVersions", Versions: h.coreVersions, ServerAddressByClientCIDRs: []ServerAddressByClientCIDR{}}
	if addr != "" {
		v.ServerAddressByClientCIDRs = append(v.ServerAddressByClientCIDRs, ServerAddressByClientCIDR{ClientCIDR: "0.0.0.0/0", ServerAddress: addr})
	}
	data, err := json.Marshal(v)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, scheme.StatusReasonInternalError, err.Error())
		return
	}
	h.servePlain(w, r, document{data: data})
}

// serveAPIs answers /apis: APIGroupList, or the named groups as aggregated discovery.
func (h *handler) serveAPIs(w http.ResponseWriter, r *http.Request) {
	if h.serveAggregated(w, r, "apis") {
		return
	}
	h.servePlain(w, r, h.groupList)
}

// serveAggregated answers with aggregated discovery when the Accept header prefers it
// and reports whether it did. Like kube-apiserver, an Accept that names an aggregated
// version this server lacks falls through to the unaggregated document.
func (h *handler) serveAggregated(w http.ResponseWriter, r *http.Request, prefix string) bool {
	neg, err := negotiate(r.Header.Get("Accept"), true)
	if err != nil || neg.aggregated == "" {
		return false
	}
	doc := h.aggregated[prefix][neg.aggregated]
	w.Header().Set("Vary", "Accept")
	w.Header().Set("ETag", doc.etag)
	w.Header().Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	ct := neg.mediaType + ";g=" + AggregatedGroup + ";v=" + neg.aggregated + ";as=" + AggregatedKind
	writeBody(w, r, ct, neg.encode(doc.data))
	return true
}

// servePlain writes an unaggregated discovery document as JSON or YAML, or 406.
func (h *handler) servePlain(w http.ResponseWriter, r *http.Request, doc document) {
	neg, err := negotiate(r.Header.Get("Accept"), false)
	if err != nil {
		notAcceptable(w)
		return
	}
	writeBody(w, r, neg.mediaType, neg.encode(doc.data))
}

// serveJSONDocument writes a JSON-only document (/version) as kube-apiserver does,
// whatever the Accept header says.
func serveJSONDocument(w http.ResponseWriter, r *http.Request, doc document) {
	writeBody(w, r, "application/json", doc.data)
}

func writeBody(w http.ResponseWriter, r *http.Request, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// writeStatus writes a meta/v1 Status failure, kube-apiserver's error body.
func writeStatus(w http.ResponseWriter, code int, reason scheme.StatusReason, message string) {
	st := scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   scheme.StatusFailure,
		Message:  message,
		Reason:   reason,
		Details:  &scheme.StatusDetails{},
		Code:     int32(code),
	}
	if code == http.StatusNotAcceptable {
		st.Details = nil
	}
	data, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func notFound(w http.ResponseWriter) {
	writeStatus(w, http.StatusNotFound, scheme.StatusReasonNotFound, "the server could not find the requested resource")
}

func notAcceptable(w http.ResponseWriter) {
	writeStatus(w, http.StatusNotAcceptable, scheme.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, application/yaml")
}

// buildVersion encodes /version, indented like kube-apiserver's.
func (h *handler) buildVersion(v VersionInfo) error {
	d := DefaultVersion()
	fill := func(dst *string, def string) {
		if *dst == "" {
			*dst = def
		}
	}
	fill(&v.Major, d.Major)
	fill(&v.Minor, d.Minor)
	fill(&v.GitVersion, d.GitVersion)
	fill(&v.BuildDate, d.BuildDate)
	fill(&v.GoVersion, d.GoVersion)
	fill(&v.Compiler, d.Compiler)
	fill(&v.Platform, d.Platform)
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("discovery: encoding /version: %w", err)
	}
	h.version = document{data: data}
	return nil
}

// marshal encodes v as compact JSON, as kube-apiserver writes discovery documents.
func marshal(v any) ([]byte, error) { return json.Marshal(v) }
