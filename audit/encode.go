package audit

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/apikit-dev/apikit/internal/jsonwire"
)

// AppendJSON appends ev as JSON, the bytes encoding/json writes for it, without
// reflection: a server at the Metadata level writes two events per request, and the
// generic encoder cost as much as a fifth of serving a small GET. The rarer parts (a
// response Status with details, request and response bodies) go through encoding/json.
func (ev *Event) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = jsonwire.AppendString(b, ev.Kind)
	b = append(b, `,"apiVersion":`...)
	b = jsonwire.AppendString(b, ev.APIVersion)
	b = append(b, `,"level":`...)
	b = jsonwire.AppendString(b, string(ev.Level))
	b = append(b, `,"auditID":`...)
	b = jsonwire.AppendString(b, ev.AuditID)
	b = append(b, `,"stage":`...)
	b = jsonwire.AppendString(b, string(ev.Stage))
	b = append(b, `,"requestURI":`...)
	b = jsonwire.AppendString(b, ev.RequestURI)
	b = append(b, `,"verb":`...)
	b = jsonwire.AppendString(b, ev.Verb)
	b = append(b, `,"user":`...)
	b = ev.User.appendJSON(b)
	if ev.ImpersonatedUser != nil {
		b = append(b, `,"impersonatedUser":`...)
		b = ev.ImpersonatedUser.appendJSON(b)
	}
	if len(ev.SourceIPs) > 0 {
		b = append(b, `,"sourceIPs":`...)
		b = appendStrings(b, ev.SourceIPs)
	}
	b = appendOptional(b, `,"userAgent":`, ev.UserAgent)
	if r := ev.ObjectRef; r != nil {
		b = append(b, `,"objectRef":{`...)
		n := len(b)
		b = appendOptional(b, `,"resource":`, r.Resource)
		b = appendOptional(b, `,"namespace":`, r.Namespace)
		b = appendOptional(b, `,"name":`, r.Name)
		b = appendOptional(b, `,"uid":`, r.UID)
		b = appendOptional(b, `,"apiGroup":`, r.APIGroup)
		b = appendOptional(b, `,"apiVersion":`, r.APIVersion)
		b = appendOptional(b, `,"resourceVersion":`, r.ResourceVersion)
		b = appendOptional(b, `,"subresource":`, r.Subresource)
		if len(b) > n {
			b = slices.Delete(b, n, n+1) // the first field's comma
		}
		b = append(b, '}')
	}
	var err error
	if st := ev.ResponseStatus; st != nil {
		b = append(b, `,"responseStatus":`...)
		if st.Code != 0 && st.Status == "" && st.Message == "" && st.Reason == "" && st.Details == nil && st.Kind == "" && st.APIVersion == "" && st.ResourceVersion == "" && st.Continue == "" && st.RemainingItemCount == nil && st.SelfLink == "" {
			// A success: kube-apiserver records only its code.
			b = append(b, `{"metadata":{},"code":`...)
			b = strconv.AppendInt(b, int64(st.Code), 10)
			b = append(b, '}')
		} else if b, err = appendMarshaled(b, st); err != nil {
			return b, err
		}
	}
	if len(ev.RequestObject) > 0 {
		b = append(b, `,"requestObject":`...)
		if b, err = appendMarshaled(b, ev.RequestObject); err != nil {
			return b, err
		}
	}
	if len(ev.ResponseObject) > 0 {
		b = append(b, `,"responseObject":`...)
		if b, err = appendMarshaled(b, ev.ResponseObject); err != nil {
			return b, err
		}
	}
	b = append(b, `,"requestReceivedTimestamp":`...)
	b = appendMicroTime(b, ev.RequestReceivedTimestamp.Time)
	b = append(b, `,"stageTimestamp":`...)
	b = appendMicroTime(b, ev.StageTimestamp.Time)
	if len(ev.Annotations) > 0 {
		b = append(b, `,"annotations":{`...)
		for i, k := range slices.Sorted(maps.Keys(ev.Annotations)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwire.AppendString(b, k)
			b = append(b, ':')
			b = jsonwire.AppendString(b, ev.Annotations[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendJSON appends u as authentication/v1 UserInfo (every field omitempty).
func (u *UserInfo) appendJSON(b []byte) []byte {
	b = append(b, '{')
	n := len(b)
	b = appendOptional(b, `,"username":`, u.Username)
	b = appendOptional(b, `,"uid":`, u.UID)
	if len(u.Groups) > 0 {
		b = append(b, `,"groups":`...)
		b = appendStrings(b, u.Groups)
	}
	if len(u.Extra) > 0 {
		b = append(b, `,"extra":{`...)
		for i, k := range slices.Sorted(maps.Keys(u.Extra)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwire.AppendString(b, k)
			b = append(b, ':')
			if v := u.Extra[k]; v == nil {
				b = append(b, "null"...)
			} else {
				b = appendStrings(b, v)
			}
		}
		b = append(b, '}')
	}
	if len(b) > n {
		b = slices.Delete(b, n, n+1) // the first field's comma
	}
	return append(b, '}')
}

// appendOptional appends ,"name":value unless value is empty (omitempty).
func appendOptional(b []byte, field, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, field...)
	return jsonwire.AppendString(b, value)
}

// appendStrings appends a JSON array of strings.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwire.AppendString(b, s)
	}
	return append(b, ']')
}

// appendMicroTime appends a scheme.MicroTime as its MarshalJSON does: null when zero.
func appendMicroTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return jsonwire.AppendTime(b, t, true)
}

// appendMarshaled appends json.Marshal(v): the rare parts of an event, which need no
// fast path (an error Status; a body, which Marshal validates and compacts).
func appendMarshaled(b []byte, v any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, js...), nil
}
