package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// OpenAPI protobuf media types kube-apiserver also serves (gnostic encodings). apikit
// serves JSON only: a request that accepts nothing but these gets 406.
const (
	mediaTypeOpenAPIV2Proto = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaTypeOpenAPIV3Proto = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
)

// buildOpenAPI renders /openapi/v2, the /openapi/v3 index and one v3 document per group
// version, with path items for the served resources unless withPaths is false.
func (h *handler) buildOpenAPI(s *scheme.Scheme, m model, withPaths bool) error {
	v2, err := openapi.Build(s)
	if err != nil {
		return fmt.Errorf("discovery: building /openapi/v2: %w", err)
	}
	if withPaths {
		v2.Paths = paths(m, v2, nil)
	}
	data, err := json.Marshal(v2)
	if err != nil {
		return fmt.Errorf("discovery: encoding /openapi/v2: %w", err)
	}
	h.openAPIV2 = document{data: data, etag: strconv.Quote(openapi.Hash(data))}

	docs, err := openapi.ForAllGroupVersions(s)
	if err != nil {
		return fmt.Errorf("discovery: building /openapi/v3: %w", err)
	}
	h.openAPIV3 = make(map[string]document, len(docs))
	index := make(map[string][]byte, len(docs))
	for _, gv := range openapi.GroupVersions(s) {
		p := openapi.DiscoveryPath(gv)
		doc := docs[p]
		if withPaths {
			doc.Paths = paths(m, doc, &gv)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("discovery: encoding /openapi/v3/%s: %w", p, err)
		}
		// The ETag is the bare hash, as in the document's URL; the header quotes it.
		h.openAPIV3[p] = document{data: data, etag: openapi.Hash(data)}
		index[p] = data
	}
	data, err = json.Marshal(openapi.NewDiscovery(index))
	if err != nil {
		return fmt.Errorf("discovery: encoding /openapi/v3: %w", err)
	}
	h.openAPIIndex = document{data: data, etag: strconv.Quote(openapi.Hash(data))}
	return nil
}

// acceptsJSON reads an OpenAPI request's Accept header as kube-openapi does: the clauses in
// order of preference, the first that admits application/json wins, and a clause for a
// protobuf encoding (which apikit lacks) is passed over. It reports false when no clause
// admits JSON.
func acceptsJSON(accept string) bool {
	for _, c := range codec.ParseAccept(accept) {
		if c.Q <= 0 {
			continue
		}
		if c.Type == "*" || (c.Type == "application" && (c.Subtype == "*" || c.Subtype == "json")) {
			return true
		}
	}
	return false
}

// serveOpenAPIV2 answers /openapi/v2 (Swagger 2.0 JSON), with an ETag and conditional GET.
func (h *handler) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept")
	if !acceptsJSON(r.Header.Get("Accept")) {
		openAPINotAcceptable(w, mediaTypeOpenAPIV2Proto)
		return
	}
	w.Header().Set("Content-Type", codec.MediaTypeJSON)
	w.Header().Set("ETag", h.openAPIV2.etag)
	http.ServeContent(w, r, "", h.lastModified, bytes.NewReader(h.openAPIV2.data))
}

// serveOpenAPIIndex answers /openapi/v3: the group versions and their hashed URLs.
func (h *handler) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", codec.MediaTypeJSON)
	w.Header().Set("ETag", h.openAPIIndex.etag)
	http.ServeContent(w, r, "", h.lastModified, bytes.NewReader(h.openAPIIndex.data))
}

// serveOpenAPIV3 answers /openapi/v3/PATH as kube-openapi's handler3 does: the document
// with its hash as ETag; with ?hash= equal to it, immutable caching headers for a year;
// with a stale hash, a 301 to the current URL.
func (h *handler) serveOpenAPIV3(w http.ResponseWriter, r *http.Request, p string) {
	doc, ok := h.openAPIV3[p]
	if !ok {
		notFound(w)
		return
	}
	w.Header().Add("Vary", "Accept")
	if !acceptsJSON(r.Header.Get("Accept")) {
		openAPINotAcceptable(w, mediaTypeOpenAPIV3Proto)
		return
	}
	w.Header().Set("Content-Type", codec.MediaTypeJSON)
	w.Header().Set("ETag", strconv.Quote(doc.etag))
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.etag {
			http.Redirect(w, r, openapi.ServerRelativeURL(p, doc.etag), http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	http.ServeContent(w, r, "", h.lastModified, bytes.NewReader(doc.data))
}

func openAPINotAcceptable(w http.ResponseWriter, proto string) {
	writeStatus(w, http.StatusNotAcceptable, scheme.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json (not "+proto+")")
}

// paths returns the path items of the resources a document describes: all group
// versions for Swagger 2.0 (gv nil), one for a v3 document. Each operation carries
// x-kubernetes-action, x-kubernetes-group-version-kind and its query parameters, and
// refers to the kind's definition for its body and response.
func paths(m model, doc *openapi.Document, gv *scheme.GroupVersion) map[string]any {
	defs := map[scheme.GroupVersionKind]string{}
	for name, s := range doc.Schemas {
		for _, gvk := range s.GroupVersionKinds {
			defs[gvk] = name
		}
	}
	pb := pathBuilder{v2: doc.Dialect == openapi.V2, defs: defs, status: statusDefinition(doc)}
	out := map[string]any{}
	for _, g := range m.groups {
		for _, v := range g.versions {
			if gv != nil && (gv.Group != g.name || gv.Version != v.version) {
				continue
			}
			for _, rm := range v.resources {
				pb.resource(out, g.name, v.version, rm)
			}
		}
	}
	return out
}

// statusDefinition is the name of meta/v1 Status in doc, or "" if it has none.
func statusDefinition(doc *openapi.Document) string {
	const name = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	if _, ok := doc.Schemas[name]; ok {
		return name
	}
	return ""
}

type pathBuilder struct {
	v2     bool
	defs   map[scheme.GroupVersionKind]string
	status string
	// strategic: the resource being built takes strategic merge patches.
	strategic bool
}

// resource adds the collection, item, all-namespaces and status paths of one resource.
func (pb pathBuilder) resource(out map[string]any, group, version string, rm resourceModel) {
	pb.strategic = rm.strategic
	r := rm.r
	gvk := scheme.GroupVersionKind{Group: group, Version: version, Kind: r.Kind}
	listGVK := gvk.GroupVersion().WithKind(r.ListKind)
	base := "/apis/" + group + "/" + version
	if group == "" {
		base = "/api/" + version
	}
	idBase := operationPrefix(group, version)
	scope, nsParam := "", []any(nil)
	collection := base + "/" + r.Plural
	if r.Namespaced {
		scope = "Namespaced"
		collection = base + "/namespaces/{namespace}/" + r.Plural
		nsParam = []any{pb.pathParam("namespace", "object name and auth scope, such as for teams and projects")}
	}
	item := collection + "/{name}"
	nameParam := pb.pathParam("name", "name of the "+r.Kind)
	has := func(verb string) bool {
		for _, v := range rm.r.Verbs {
			if v == verb {
				return true
			}
		}
		return false
	}

	coll := map[string]any{"parameters": append(nsParam, pb.queryParam("pretty", "string", "If 'true', then the output is pretty printed."))}
	if has("list") {
		coll["get"] = pb.op("list "+scope+" "+r.Kind, "list"+idBase+scope+r.Kind, "list", gvk, nil, pb.ref(listGVK), listParams)
	}
	if has("create") {
		coll["post"] = pb.op("create a "+r.Kind, "create"+idBase+scope+r.Kind, "post", gvk, pb.ref(gvk), pb.ref(gvk), writeParams)
	}
	if has("deletecollection") {
		coll["delete"] = pb.op("delete collection of "+r.Kind, "deleteCollection"+idBase+scope+r.Kind, "deletecollection", gvk, object(), pb.statusRef(), deleteCollectionParams)
	}
	out[collection] = coll

	it := map[string]any{"parameters": append([]any{nameParam}, append(nsParam, pb.queryParam("pretty", "string", "If 'true', then the output is pretty printed."))...)}
	if has("get") {
		it["get"] = pb.op("read the specified "+r.Kind, "read"+idBase+scope+r.Kind, "get", gvk, nil, pb.ref(gvk), nil)
	}
	if has("update") {
		it["put"] = pb.op("replace the specified "+r.Kind, "replace"+idBase+scope+r.Kind, "put", gvk, pb.ref(gvk), pb.ref(gvk), writeParams)
	}
	if has("patch") {
		it["patch"] = pb.op("partially update the specified "+r.Kind, "patch"+idBase+scope+r.Kind, "patch", gvk, object(), pb.ref(gvk), patchParams)
	}
	if has("delete") {
		it["delete"] = pb.op("delete a "+r.Kind, "delete"+idBase+scope+r.Kind, "delete", gvk, object(), pb.statusRef(), deleteParams)
	}
	out[item] = it

	if r.Namespaced && has("list") {
		out[base+"/"+r.Plural] = map[string]any{
			"parameters": []any{pb.queryParam("pretty", "string", "If 'true', then the output is pretty printed.")},
			"get":        pb.op("list "+r.Kind+" in all namespaces", "list"+idBase+r.Kind+"ForAllNamespaces", "list", gvk, nil, pb.ref(listGVK), listParams),
		}
	}
	if r.StatusSubresource {
		out[item+"/status"] = map[string]any{
			"parameters": append([]any{nameParam}, append(nsParam, pb.queryParam("pretty", "string", "If 'true', then the output is pretty printed."))...),
			"get":        pb.op("read status of the specified "+r.Kind, "read"+idBase+scope+r.Kind+"Status", "get", gvk, nil, pb.ref(gvk), nil),
			"put":        pb.op("replace status of the specified "+r.Kind, "replace"+idBase+scope+r.Kind+"Status", "put", gvk, pb.ref(gvk), pb.ref(gvk), writeParams),
			"patch":      pb.op("partially update status of the specified "+r.Kind, "patch"+idBase+scope+r.Kind+"Status", "patch", gvk, object(), pb.ref(gvk), patchParams),
		}
	}
}

// operationPrefix is the group version part of an operation id: "ToysExampleComV1".
func operationPrefix(group, version string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(group+"."+version, func(r rune) bool { return r == '.' || r == '-' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	if group == "" {
		return "Core" + b.String()
	}
	return b.String()
}

// query parameter sets of the operations, as name, type and description.
type param struct{ name, typ, desc string }

var (
	writeParams = []param{
		{"dryRun", "string", "When present, indicates that modifications should not be persisted. Valid value: All."},
		{"fieldManager", "string", "A name associated with the actor or entity making the change."},
		{"fieldValidation", "string", "How the server treats unknown or duplicate fields in the request body: Ignore, Warn or Strict."},
	}
	patchParams = append(append([]param(nil), writeParams...),
		param{"force", "boolean", "Force is going to \"force\" Apply requests; it must be unset for other patch types."})
	deleteParams = []param{
		{"dryRun", "string", "When present, indicates that modifications should not be persisted. Valid value: All."},
		{"gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."},
		{"propagationPolicy", "string", "Whether and how garbage collection will be performed: Orphan, Background or Foreground."},
		{"orphanDependents", "boolean", "Deprecated: use propagationPolicy."},
	}
	listParams = []param{
		{"allowWatchBookmarks", "boolean", "Requests watch events with type BOOKMARK."},
		{"continue", "string", "The continue token of a previous list call, to fetch the next page."},
		{"fieldSelector", "string", "A selector to restrict the returned objects by their fields."},
		{"labelSelector", "string", "A selector to restrict the returned objects by their labels."},
		{"limit", "integer", "The maximum number of objects to return in one page."},
		{"resourceVersion", "string", "Constrains which resource versions the request may be served from."},
		{"resourceVersionMatch", "string", "How resourceVersion is applied: Exact or NotOlderThan."},
		{"sendInitialEvents", "boolean", "With watch=true, starts the watch with synthetic events for the current state."},
		{"timeoutSeconds", "integer", "Timeout for the list or watch call."},
		{"watch", "boolean", "Watch for changes and return them as a stream of events."},
	}
	deleteCollectionParams = append(append([]param(nil), deleteParams...), listParams[1:len(listParams)-1]...)
)

func (pb pathBuilder) pathParam(name, desc string) map[string]any {
	p := map[string]any{"name": name, "in": "path", "required": true, "description": desc}
	if pb.v2 {
		p["type"], p["uniqueItems"] = "string", true
	} else {
		p["schema"] = map[string]any{"type": "string", "uniqueItems": true}
	}
	return p
}

func (pb pathBuilder) queryParam(name, typ, desc string) map[string]any {
	p := map[string]any{"name": name, "in": "query", "description": desc}
	if pb.v2 {
		p["type"], p["uniqueItems"] = typ, true
	} else {
		p["schema"] = map[string]any{"type": typ, "uniqueItems": true}
	}
	return p
}

// ref is a reference to a kind's definition, or a free-form object if the document has none.
func (pb pathBuilder) ref(gvk scheme.GroupVersionKind) map[string]any {
	name, ok := pb.defs[gvk]
	if !ok {
		return object()
	}
	if pb.v2 {
		return map[string]any{"$ref": "#/definitions/" + name}
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func (pb pathBuilder) statusRef() map[string]any {
	if pb.status == "" {
		return object()
	}
	if pb.v2 {
		return map[string]any{"$ref": "#/definitions/" + pb.status}
	}
	return map[string]any{"$ref": "#/components/schemas/" + pb.status}
}

func object() map[string]any { return map[string]any{"type": "object"} }

// op builds one operation in the document's dialect. body is the request body schema
// (nil: none); the response is 200 with the given schema.
func (pb pathBuilder) op(desc, id, action string, gvk scheme.GroupVersionKind, body, response map[string]any, query []param) map[string]any {
	params := []any{}
	consumes := []string{"*/*"}
	if action == "patch" {
		// As kube-apiserver lists them; kubectl apply and edit send strategic merge
		// patches only where the PATCH operation lists that type.
		consumes = []string{codec.MediaTypeJSONPatch, codec.MediaTypeMergePatch}
		if pb.strategic {
			consumes = append(consumes, codec.MediaTypeStrategicMergePatch)
		}
		consumes = append(consumes, codec.MediaTypeApplyPatchYAML)
	}
	produces := []string{codec.MediaTypeJSON, codec.MediaTypeYAML}
	op := map[string]any{
		"description":                     desc,
		"operationId":                     id,
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
	}
	if pb.v2 {
		if body != nil {
			params = append(params, map[string]any{"name": "body", "in": "body", "required": action != "delete" && action != "deletecollection", "schema": body})
		}
		op["consumes"] = consumes
		op["produces"] = produces
		op["schemes"] = []string{"https"}
		op["responses"] = map[string]any{
			"200": map[string]any{"description": "OK", "schema": response},
			"401": map[string]any{"description": "Unauthorized"},
		}
	} else {
		if body != nil {
			content := map[string]any{}
			for _, ct := range consumes {
				content[ct] = map[string]any{"schema": body}
			}
			op["requestBody"] = map[string]any{"content": content, "required": action != "delete" && action != "deletecollection"}
		}
		content := map[string]any{}
		for _, ct := range produces {
			content[ct] = map[string]any{"schema": response}
		}
		op["responses"] = map[string]any{
			"200": map[string]any{"description": "OK", "content": content},
			"401": map[string]any{"description": "Unauthorized"},
		}
	}
	for _, q := range query {
		params = append(params, pb.queryParam(q.name, q.typ, q.desc))
	}
	op["parameters"] = params
	return op
}
