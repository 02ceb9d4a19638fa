package rest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

// gzipThreshold is the response size above which a response is compressed when the
// client accepts gzip: kube-apiserver's defaultGzipThresholdBytes (128 KiB).
const gzipThreshold = 128 * 1024

// The "as" targets of the Accept header this package serves.
const (
	asTable                     = codec.AsTable
	asPartialObjectMetadata     = codec.AsPartialObjectMetadata
	asPartialObjectMetadataList = codec.AsPartialObjectMetadataList
)

// output is the outcome of negotiating a response: the serializer and, for Table and
// PartialObjectMetadata(List) requests, the "as" target.
type output = codec.Output

// respond sends an object (at the URL version) with code, as the client asked: plain,
// Table or PartialObjectMetadata.
func (rq *request) respond(code int, obj scheme.Kinded) {
	out, st := rq.h.negotiate(rq.r, rq.responseOptions(obj))
	if st != nil {
		rq.fail(st)
		return
	}
	if out.As == asTable {
		tbl, err := rq.table(obj)
		if err != nil {
			rq.fail(err)
			return
		}
		addWarnings(rq.w, rq.warnings)
		rq.h.writeEncoded(rq.w, rq.r, code, out, tbl)
		return
	}
	if out.As != "" {
		conv, err := toPartialMetadata(obj, out.As)
		if err != nil {
			rq.fail(err)
			return
		}
		obj = conv
	}
	addWarnings(rq.w, rq.warnings)
	rq.h.writeEncoded(rq.w, rq.r, code, out, obj)
}

// responseOptions describes a response carrying obj for negotiation: Table and
// PartialObjectMetadata(List) are offered for get and list of a resource itself.
func (rq *request) responseOptions(obj scheme.Kinded) codec.ResponseOptions {
	return codec.ResponseOptions{
		GVK: obj.GetObjectKind().GroupVersionKind(), Object: obj,
		AllowAs: func(as string) bool {
			switch as {
			case asPartialObjectMetadata, asPartialObjectMetadataList, asTable:
				return (rq.info.Verb == "get" || rq.info.Verb == "list") && rq.info.Subresource == ""
			}
			return false
		},
	}
}

// fail sends the Status of err, or kube's 504 Timeout once the request's deadline has
// passed: whatever failed then failed for want of time.
func (rq *request) fail(err error) {
	if timedOut(rq.ctx, err) {
		err = apierrors.NewTimeout()
	}
	addWarnings(rq.w, rq.warnings)
	rq.h.writeStatus(rq.w, rq.r, rq.h.toStatus(err, rq.gr, rq.info.Name))
}

// table renders an object or list as a meta.k8s.io Table (package rest/table).
func (rq *request) table(obj scheme.Kinded) (scheme.Kinded, error) {
	p, opts, err := rq.tablePrinter()
	if err != nil {
		return nil, err
	}
	if list, ok := obj.(scheme.ListObject); ok && scheme.IsList(obj) {
		return p.List(list, opts)
	}
	o, err := conversion.AsObject(obj)
	if err != nil {
		return nil, err
	}
	return p.Object(o, opts)
}

// tablePrinter returns the printer of the request's resource and the Table options
// of its query and Accept header (the meta.k8s.io version asked for).
func (rq *request) tablePrinter() (*table.Printer, table.Options, error) {
	opts, err := table.ParseOptions(rq.query)
	if err != nil {
		return nil, opts, apierrors.NewBadRequest(err.Error())
	}
	if v := rq.r.Header.Get("Accept"); strings.Contains(v, "v=v1beta1") && !strings.Contains(v, "v=v1;") && !strings.HasSuffix(v, "v=v1") {
		opts.GroupVersion = scheme.GroupVersion{Group: scheme.MetaGroupVersion.Group, Version: "v1beta1"}
	}
	p, err := table.PrinterFor(rq.res, rq.h.scheme.IsUnstructured(rq.gvk))
	return p, opts, err
}

// toPartialMetadata reduces an object or list to PartialObjectMetadata(List).
func toPartialMetadata(obj scheme.Kinded, as string) (scheme.Kinded, error) {
	tm := scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadata}
	if o, ok := obj.(scheme.Object); ok && !scheme.IsList(obj) {
		if as != asPartialObjectMetadata {
			return nil, apierrors.NewNotAcceptable([]string{"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
		}
		return &scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metaOf(o)}, nil
	}
	list, ok := obj.(scheme.ListObject)
	if !ok || as != asPartialObjectMetadataList {
		return nil, apierrors.NewNotAcceptable([]string{"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
	}
	items, err := scheme.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	out := &scheme.PartialObjectMetadataList{
		TypeMeta: scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadataList},
		ListMeta: scheme.ListMeta{ResourceVersion: list.GetResourceVersion(), Continue: list.GetContinue(), RemainingItemCount: list.GetRemainingItemCount()},
		Items:    make([]scheme.PartialObjectMetadata, len(items)),
	}
	for i, it := range items {
		out.Items[i] = scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metaOf(it)}
	}
	return out, nil
}

// metaOf copies the metadata of any object into an ObjectMeta.
func metaOf(o scheme.MetaAccessor) scheme.ObjectMeta {
	return scheme.ObjectMeta{
		Name: o.GetName(), GenerateName: o.GetGenerateName(), Namespace: o.GetNamespace(), SelfLink: o.GetSelfLink(),
		UID: o.GetUID(), ResourceVersion: o.GetResourceVersion(), Generation: o.GetGeneration(),
		CreationTimestamp: o.GetCreationTimestamp(), DeletionTimestamp: o.GetDeletionTimestamp(),
		DeletionGracePeriodSeconds: o.GetDeletionGracePeriodSeconds(), Labels: o.GetLabels(),
		Annotations: o.GetAnnotations(), OwnerReferences: o.GetOwnerReferences(), Finalizers: o.GetFinalizers(),
		ManagedFields: o.GetManagedFields(),
	}
}

// negotiate picks the response format from the Accept header for a response carrying
// what opts describe (package codec holds the rules). Nothing acceptable is a 406 Status
// listing the media types the response could have had.
func (h *Handler) negotiate(r *http.Request, opts codec.ResponseOptions) (output, *scheme.Status) {
	out, err := h.codecs.NegotiateResponse(r.Header.Get("Accept"), opts)
	if err != nil {
		var nae *codec.NotAcceptableError
		offered := h.codecs.MediaTypes()
		if errors.As(err, &nae) {
			offered = nae.Offered
		}
		return output{}, apierrors.NewNotAcceptable(offered)
	}
	return out, nil
}

// WriteStatus answers r with st as the Handler answers its own errors, in the media type
// the client accepts: for middleware in front of the Handler (the injected faults of
// package apitest, a host's maintenance switch) whose errors must read as the server's own.
func (h *Handler) WriteStatus(w http.ResponseWriter, r *http.Request, st *scheme.Status) {
	h.writeStatus(w, r, st)
}

// writeStatus sends a Status as the response, in the media type the client accepts
// (protobuf clients get a protobuf Status, like kube-apiserver sends), JSON when
// nothing acceptable is available.
func (h *Handler) writeStatus(w http.ResponseWriter, r *http.Request, st *scheme.Status) {
	if st.Code >= 500 {
		h.log.Error("rest: request failed", "method", r.Method, "path", r.URL.Path, "code", st.Code, "message", st.Message)
	}
	out, nst := h.negotiate(r, codec.ResponseOptions{})
	if nst != nil {
		ser, _ := h.codecs.ForMediaType(codec.MediaTypeJSON)
		out = output{Serializer: ser, MediaType: codec.MediaTypeJSON}
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	h.writeEncoded(w, r, code, out, st)
}

// writeEncoded encodes obj in the negotiated format and sends it with code, compressed
// when large and the client accepts gzip.
func (h *Handler) writeEncoded(w http.ResponseWriter, r *http.Request, code int, out output, obj scheme.Kinded) {
	h.auditResponse(r, obj)
	var buf bytes.Buffer
	if err := out.Serializer.Encode(&buf, obj); err != nil {
		if _, isStatus := obj.(*scheme.Status); isStatus {
			http.Error(w, "failed to encode the error response", http.StatusInternalServerError)
			return
		}
		h.writeStatus(w, r, apierrors.NewInternalError(err))
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", out.ContentType())
	hdr.Set("X-Content-Type-Options", "nosniff")
	body := buf.Bytes()
	if out.MediaType == codec.MediaTypeJSON && prettyPrint(r) {
		var pb bytes.Buffer
		iw := codec.NewIndentWriter(&pb)
		_, _ = iw.Write(bytes.TrimSuffix(body, []byte("\n"))) // a bytes.Buffer takes every write
		_ = iw.Flush()
		body = append(pb.Bytes(), '\n')
	}
	if len(body) > gzipThreshold && acceptsGzip(r) {
		var zb bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&zb, gzip.DefaultCompression)
		_, _ = zw.Write(body)
		_ = zw.Close()
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		body = zb.Bytes()
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// prettyPrint reports whether a JSON response is indented, as kube-apiserver decides it:
// the pretty query parameter when given, otherwise for command-line tools and browsers
// (User-Agent curl, Wget or Mozilla/5.0).
func prettyPrint(r *http.Request) bool {
	if strings.Contains(r.URL.RawQuery, "pretty") {
		if v := r.URL.Query().Get("pretty"); v != "" {
			b, _ := strconv.ParseBool(v)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
				continue
			}
			q := strings.TrimSpace(params)
			if v, ok := strings.CutPrefix(q, "q="); ok && strings.Trim(v, "0.") == "" {
				continue
			}
			return true
		}
	}
	return false
}

// addWarnings sends each message as a Warning header in kube's `299 - "..."` format.
func addWarnings(w http.ResponseWriter, msgs []string) {
	seen := map[string]bool{}
	for _, m := range msgs {
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		w.Header().Add("Warning", `299 - `+quoteWarning(m))
	}
}

// quoteWarning quotes a warning text as an HTTP quoted-string: backslash and double
// quote are escaped, control characters dropped.
func quoteWarning(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 && c != '\t' || c == 0x7f:
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
