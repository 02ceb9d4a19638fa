package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// maxUserAgentLength is how much of the User-Agent an audit event keeps, as
// kube-apiserver, which appends userAgentTruncated to a longer one.
const (
	maxUserAgentLength = 1024
	userAgentTruncated = "...TRUNCATED"
)

// auditor records the audit events of a Handler's requests (Options.Audit).
type auditor struct {
	h        *Handler
	eval     *audit.Evaluator
	sink     audit.Sink
	maxBytes int
}

func newAuditor(h *Handler, c *audit.Config) *auditor {
	a := &auditor{h: h, eval: audit.NewEvaluator(c.Policy), sink: c.Sink, maxBytes: c.MaxEventBytes}
	if a.maxBytes <= 0 {
		a.maxBytes = audit.DefaultMaxEventBytes
	}
	return a
}

// auditRecord is the audit event of one request, completed as the request goes.
type auditRecord struct {
	a   *auditor
	cfg audit.RequestConfig
	ev  audit.Event
	// failedAuth is a request that failed authentication: kube-apiserver records it
	// with one ResponseStarted event.
	failedAuth bool
	// annotationsMu guards ev.Annotations, which AddAuditAnnotation may set from any
	// goroutine of the host's; the map is replaced, never changed, once an event that
	// a Sink may keep has shared it.
	annotationsMu sync.Mutex
}

// auditUser is user as an audit event records it (authentication/v1 UserInfo).
func auditUser(user *authn.User) audit.UserInfo {
	return audit.UserInfo{Username: user.Name, UID: user.UID, Groups: user.Groups, Extra: user.Extra}
}

// begin evaluates the policy for the request and, unless its level is None, fills the
// event's metadata and sends RequestReceived (not for a request that failed
// authentication, user nil).
func (a *auditor) begin(o *observation, user *authn.User) *auditRecord {
	info := o.info
	attrs := audit.Attributes{
		Verb: info.Verb, Namespace: info.Namespace, APIGroup: info.APIGroup, APIVersion: info.APIVersion,
		Resource: info.Resource, Subresource: info.Subresource, Name: info.Name, Path: info.Path,
		ResourceRequest: info.IsResourceRequest,
	}
	var ui audit.UserInfo
	if user != nil {
		ui = auditUser(user)
		attrs.User = &ui
	}
	cfg := a.eval.Evaluate(&attrs)
	if cfg.Level == audit.LevelNone {
		return nil
	}
	ua := o.r.UserAgent()
	if len(ua) > maxUserAgentLength {
		ua = ua[:maxUserAgentLength] + userAgentTruncated
	}
	rec := &auditRecord{a: a, cfg: cfg, failedAuth: user == nil, ev: audit.Event{
		Kind: audit.EventKind, APIVersion: audit.APIVersion,
		Level: cfg.Level, AuditID: o.auditID, RequestURI: o.r.URL.RequestURI(), Verb: info.Verb,
		User: ui, SourceIPs: sourceIPs(o.r), UserAgent: ua,
		RequestReceivedTimestamp: scheme.NewMicroTime(o.start.Truncate(time.Microsecond)),
	}}
	if info.IsResourceRequest {
		rec.ev.ObjectRef = &audit.ObjectReference{
			Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
			APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource,
		}
	}
	if !rec.failedAuth {
		rec.emit(audit.StageRequestReceived)
	}
	return rec
}

// responseStarted records the response code; a watch and a request that failed
// authentication send ResponseStarted now, as kube-apiserver does.
func (rec *auditRecord) responseStarted(o *observation, code int) {
	if rec.ev.ResponseStatus == nil {
		rec.ev.ResponseStatus = &scheme.Status{}
	}
	rec.ev.ResponseStatus.Code = int32(code)
	if rec.failedAuth || isLongRunning(o.info) {
		rec.emit(audit.StageResponseStarted)
	}
}

// end sends the last event: Panic when serving panicked, otherwise ResponseComplete
// (after a ResponseStarted of "Connection closed early" for a watch that never sent its
// header).
func (rec *auditRecord) end(o *observation) {
	if rec.failedAuth {
		return
	}
	if o.panicked != nil {
		rec.ev.ResponseStatus = &scheme.Status{
			Code: http.StatusInternalServerError, Status: scheme.StatusFailure, Reason: scheme.StatusReasonInternalError,
			Message: fmt.Sprintf("APIServer panic'd: %v", o.panicked),
		}
		rec.emit(audit.StagePanic)
		return
	}
	if rec.ev.ResponseStatus == nil {
		rec.ev.ResponseStatus = &scheme.Status{Code: http.StatusOK, Status: scheme.StatusSuccess, Message: "Connection closed early"}
		if isLongRunning(o.info) {
			rec.emit(audit.StageResponseStarted)
		}
	}
	rec.emit(audit.StageResponseComplete)
}

// emit sends a copy of the event at stage, unless the policy omits the stage.
func (rec *auditRecord) emit(stage audit.Stage) {
	if rec.cfg.Omits(stage) {
		return
	}
	rec.annotationsMu.Lock()
	ev := rec.ev
	rec.annotationsMu.Unlock()
	ev.Stage = stage
	ev.StageTimestamp = ev.RequestReceivedTimestamp
	if stage != audit.StageRequestReceived {
		ev.StageTimestamp = scheme.NowMicro()
	}
	if ev.ResponseStatus != nil {
		st := *ev.ResponseStatus
		ev.ResponseStatus = &st
	}
	if err := rec.a.sink.ProcessEvent(&ev); err != nil {
		rec.a.h.log.Warn("rest: audit event not recorded", "auditID", ev.AuditID, "stage", stage, "err", err)
	}
}

// auditRecordOf returns the audit record of a request, nil when it is not audited.
func (h *Handler) auditRecordOf(r *http.Request) *auditRecord {
	return h.auditRecordIn(r.Context())
}

// auditRecordIn returns the audit record of the request ctx belongs to, nil when it is
// not audited; without an audit log it does not look into ctx.
func (h *Handler) auditRecordIn(ctx context.Context) *auditRecord {
	if h.obs == nil || h.obs.audit == nil {
		return nil
	}
	return auditRecordFrom(ctx)
}

// AddAuditAnnotation records key=value in the audit event of the request ctx belongs
// to, as kube-apiserver's audit.AddAuditAnnotation does for its filters and admission
// plugins: the events sent after the call carry it in their annotations. A key keeps the
// first value it was given (kube logs the conflict and keeps it too). Outside a request
// the policy audits it does nothing. It is safe to call from any goroutine.
func AddAuditAnnotation(ctx context.Context, key, value string) {
	if rec := auditRecordFrom(ctx); rec != nil {
		rec.annotate(key, value)
	}
}

// auditRecordFrom returns the audit record of the request ctx belongs to, nil when it
// is not audited.
func auditRecordFrom(ctx context.Context) *auditRecord {
	if o := observationFrom(ctx); o != nil {
		return o.audit
	}
	return nil
}

// annotate adds the annotations keysAndValues (key, value, key, value, ...) to the
// event, each key keeping its first value, as kube's addAuditAnnotationLocked. The map
// is copied rather than changed, so that an event already sent, which a Sink may keep,
// does not change.
func (rec *auditRecord) annotate(keysAndValues ...string) {
	rec.annotationsMu.Lock()
	defer rec.annotationsMu.Unlock()
	next := maps.Clone(rec.ev.Annotations)
	if next == nil {
		next = make(map[string]string, len(keysAndValues)/2)
	}
	for i := 0; i+1 < len(keysAndValues); i += 2 {
		if _, set := next[keysAndValues[i]]; !set {
			next[keysAndValues[i]] = keysAndValues[i+1]
		}
	}
	rec.ev.Annotations = next
}

// auditRequestBody records a request body as read (a patch, delete options) at the
// Request level and above, as JSON; YAML is converted, other media types are left out.
// A create or update replaces it with the decoded object (auditRequestObject).
func (h *Handler) auditRequestBody(r *http.Request, body []byte) {
	rec := h.auditRecordOf(r)
	if rec == nil || rec.ev.Level.Less(audit.LevelRequest) || len(body) == 0 {
		return
	}
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	mt = strings.TrimSpace(mt)
	switch {
	case mt == "" || mt == codec.MediaTypeJSON || strings.HasSuffix(mt, "+json"):
		if !json.Valid(body) {
			return
		}
	case mt == "application/yaml" || strings.HasSuffix(mt, "+yaml"):
		js, _, err := codec.YAMLToJSONWithin(body, h.maxBody)
		if err != nil {
			return
		}
		body = js
	default:
		return
	}
	rec.ev.RequestObject = rec.bounded(body)
}

// auditRequestObject records what a create or update decoded (with defaults), as
// kube-apiserver's LogRequestObject: the object's name, namespace, uid and
// resourceVersion complete objectRef at every level, the object itself is the
// requestObject at the Request level and above. A patch keeps the patch as its
// requestObject, as in kube-apiserver.
func (rq *request) auditRequestObject(obj scheme.Object) {
	rec := rq.h.auditRecordOf(rq.r)
	if rec == nil || rq.info.Verb == "patch" {
		return
	}
	if ref := rec.ev.ObjectRef; ref != nil {
		if ref.Namespace == "" {
			ref.Namespace = obj.GetNamespace()
		}
		if ref.Name == "" {
			ref.Name = obj.GetName()
		}
		if ref.UID == "" {
			ref.UID = string(obj.GetUID())
		}
		if ref.ResourceVersion == "" {
			ref.ResourceVersion = obj.GetResourceVersion()
		}
	}
	if rec.ev.Level.Less(audit.LevelRequest) {
		return
	}
	if js, ok := rq.h.auditJSON(obj); ok {
		rec.ev.RequestObject = rec.bounded(js)
	}
}

// auditResponse records a response as it is written: a Status is the event's
// responseStatus (status, message, reason, details, code) at every level; any response
// is the responseObject at the RequestResponse level.
func (h *Handler) auditResponse(r *http.Request, obj scheme.Kinded) {
	rec := h.auditRecordOf(r)
	if rec == nil {
		return
	}
	if st, ok := obj.(*scheme.Status); ok {
		rec.ev.ResponseStatus = &scheme.Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: st.Code}
	}
	if rec.ev.Level != audit.LevelRequestResponse {
		return
	}
	if js, ok := h.auditJSON(obj); ok {
		rec.ev.ResponseObject = rec.bounded(js)
	}
}

// auditJSON encodes obj as JSON for an event.
func (h *Handler) auditJSON(obj scheme.Kinded) ([]byte, bool) {
	ser, ok := h.codecs.ForMediaType(codec.MediaTypeJSON)
	if !ok {
		return nil, false
	}
	var buf bytes.Buffer
	if err := ser.Encode(&buf, obj); err != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

// bounded returns a body to record: nil, with the event annotated
// audit.k8s.io/truncated=true, when it is over the size limit; without managedFields
// when the policy omits them.
func (rec *auditRecord) bounded(js []byte) json.RawMessage {
	if len(js) > rec.a.maxBytes {
		rec.annotate(audit.AnnotationTruncated, "true")
		return nil
	}
	if rec.cfg.OmitManagedFields && bytes.Contains(js, []byte(`"managedFields"`)) {
		js = withoutManagedFields(js)
	}
	return json.RawMessage(bytes.Clone(js))
}

// withoutManagedFields drops metadata.managedFields from an object, from the items of a
// list and from the row objects of a Table, as kube's copyWithoutManagedFields.
func withoutManagedFields(js []byte) []byte {
	var doc map[string]any
	if json.Unmarshal(js, &doc) != nil {
		return js
	}
	dropManagedFields(doc)
	for _, key := range []string{"items", "rows"} {
		list, _ := doc[key].([]any)
		for _, it := range list {
			m, _ := it.(map[string]any)
			if key == "rows" {
				m, _ = m["object"].(map[string]any)
			}
			dropManagedFields(m)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return js
	}
	return out
}

func dropManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// sourceIPs are a request's source addresses as kube's utilnet.SourceIPs lists them: the
// X-Forwarded-For chain, X-Real-Ip unless already in it, then the peer's address unless
// it is the last one.
func sourceIPs(r *http.Request) []string {
	forwarded, real := r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Real-Ip")
	if forwarded == "" && real == "" {
		// The common case, a client connected directly: its address alone.
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			return []string{ip.Unmap().String()}
		}
		return []string{}
	}
	var ips []netip.Addr
	for _, part := range strings.Split(forwarded, ",") {
		if ip, err := netip.ParseAddr(strings.TrimSpace(part)); err == nil {
			ips = append(ips, ip.Unmap())
		}
	}
	if ip, err := netip.ParseAddr(real); err == nil && !slices.Contains(ips, ip.Unmap()) {
		ips = append(ips, ip.Unmap())
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && (len(ips) == 0 || ips[len(ips)-1] != ip.Unmap()) {
		ips = append(ips, ip.Unmap())
	}
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}
