package rest

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// gzipThreshold is the response size above which a response is compressed when the
// client accepts gzip: kube-apiserver's defaultGzipThresholdBytes (128 KiB).
const gzipThreshold = 128 * 1024

// The "as" targets of the Accept header this package serves.
const (
	asTable                     = "Table"
	asPartialObjectMetadata     = "PartialObjectMetadata"
	asPartialObjectMetadataList = "PartialObjectMetadataList"
)

// output is the outcome of negotiating a response: the serializer and, for Table and
// PartialObjectMetadata(List) requests, the "as" target.
type output struct {
	ser       codec.Serializer
	mediaType string
	as        string
}

// negotiate picks the response format from the Accept header. allowAs says which "as"
// targets the endpoint can produce; clauses asking for another are skipped, so a client
// that offers a fallback (kubectl's "...;as=Table, application/json") gets it.
func (h *Handler) negotiate(r *http.Request, allowAs func(as string) bool) (output, *scheme.Status) {
	accept := r.Header.Get("Accept")
	offered := h.codecs.MediaTypes()
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	m, err := codec.NegotiateFunc(accept, offered, func(c codec.MediaType, _ string) bool {
		as := c.Params["as"]
		if as == "" {
			return true
		}
		if allowAs == nil || !allowAs(as) {
			return false
		}
		g, v := c.Params["g"], c.Params["v"]
		return g == scheme.MetaGroupVersion.Group && (v == "v1" || v == "v1beta1")
	})
	if err != nil {
		return output{}, NewNotAcceptable(offered)
	}
	ser, _ := h.codecs.ForMediaType(m.Offered)
	return output{ser: ser, mediaType: m.Offered, as: m.Clause.Params["as"]}, nil
}

// contentType is the Content-Type of a response in this format.
func (o output) contentType() string {
	if o.as != "" {
		return o.mediaType + ";as=" + o.as + ";v=v1;g=meta.k8s.io"
	}
	return o.mediaType
}

// writeStatus sends a Status as the response: JSON unless the client asked for YAML.
func (h *Handler) writeStatus(w http.ResponseWriter, r *http.Request, st *scheme.Status) {
	if st.Code >= 500 {
		h.log.Error("rest: request failed", "method", r.Method, "path", r.URL.Path, "code", st.Code, "message", st.Message)
	}
	out, nst := h.negotiate(r, nil)
	if nst != nil {
		ser, _ := h.codecs.ForMediaType(codec.MediaTypeJSON)
		out = output{ser: ser, mediaType: codec.MediaTypeJSON}
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
	var buf bytes.Buffer
	if err := out.ser.Encode(&buf, obj); err != nil {
		if _, isStatus := obj.(*scheme.Status); isStatus {
			http.Error(w, "failed to encode the error response", http.StatusInternalServerError)
			return
		}
		h.writeStatus(w, r, NewInternalError(err))
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", out.contentType())
	hdr.Set("X-Content-Type-Options", "nosniff")
	body := buf.Bytes()
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
