package protobuf

import (
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// Hand-written encoders and decoders of the meta/v1 messages, with the field numbers
// of k8s.io/apimachinery's pkg/apis/meta/v1/generated.proto and the byte layout of its
// gogo-generated marshallers: fields in ascending number order, non-pointer scalars
// and embedded messages always written (empty or zero), pointers only when set, lists
// and maps only when not empty, map entries sorted by key.

// appendTimeBody appends the body of a meta/v1 Time (a Timestamp {seconds=1, nanos=2}):
// nothing for the zero time, else seconds and nanos 0 (Kubernetes keeps second
// precision on the wire).
func appendTimeBody(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = appendVarintField(b, 1, uint64(t.Unix()))
	return appendVarintField(b, 2, 0)
}

// appendTime appends a non-nullable Time field.
func appendTime(b []byte, num protowire.Number, t time.Time) []byte {
	b, start := beginMessage(b, num)
	return endMessage(appendTimeBody(b, t), start)
}

// decodeTime reads a Time body; like apimachinery it keeps seconds only and returns
// local time. An empty body is the zero time.
func decodeTime(data []byte) (scheme.Time, error) {
	if len(data) == 0 {
		return scheme.Time{}, nil
	}
	secs, _, err := decodeTimestamp(data, "Time")
	if err != nil {
		return scheme.Time{}, err
	}
	return scheme.Time{Time: time.Unix(secs, 0).Local()}, nil
}

// decodeTimestamp reads the seconds (1) and nanos (2) of a Timestamp-shaped message,
// the wire form of meta/v1 Time and MicroTime; msg names it in errors.
func decodeTimestamp(data []byte, msg string) (secs int64, nanos int32, err error) {
	r := reader{b: data, msg: msg}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return secs, nanos, err
		}
		switch r.num {
		case 1:
			secs, err = r.int64()
		case 2:
			nanos, err = r.int32()
		default:
			err = r.skip()
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// mapEntry is one entry of a map<string,string>.
type mapEntry struct{ key, value string }

// appendStringMap appends map<string,string> entries, sorted by key.
func appendStringMap(b []byte, num protowire.Number, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	// Most label and annotation maps are small: their entries are sorted on the stack,
	// keys with their values, so that no key is looked up again.
	var small [16]mapEntry
	entries := small[:0]
	for k, v := range m {
		entries = append(entries, mapEntry{k, v})
	}
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	for i := range entries {
		var start int
		b, start = beginMessage(b, num)
		b = appendString(b, 1, entries[i].key)
		b = appendString(b, 2, entries[i].value)
		b = endMessage(b, start)
	}
	return b
}

// decodeMapEntry reads one map<string,string> entry into m.
func decodeMapEntry(data []byte, m map[string]string) error {
	return decodeMapEntryFrom(reader{b: data, msg: "map entry"}, m)
}

// decodeMapEntryFrom reads one map<string,string> entry from r into m.
func decodeMapEntryFrom(r reader, m map[string]string) error {
	var k, v string
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			m[k] = v
			return nil
		}
		switch r.num {
		case 1:
			k, err = r.string()
		case 2:
			v, err = r.string()
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendObjectMeta appends the body of an ObjectMeta.
func appendObjectMeta(b []byte, m *scheme.ObjectMeta) []byte {
	b = appendString(b, 1, m.Name)
	b = appendString(b, 2, m.GenerateName)
	b = appendString(b, 3, m.Namespace)
	b = appendString(b, 4, m.SelfLink)
	b = appendString(b, 5, string(m.UID))
	b = appendString(b, 6, m.ResourceVersion)
	b = appendVarintField(b, 7, uint64(m.Generation))
	b = appendTime(b, 8, m.CreationTimestamp.Time)
	if m.DeletionTimestamp != nil {
		b = appendTime(b, 9, m.DeletionTimestamp.Time)
	}
	if m.DeletionGracePeriodSeconds != nil {
		b = appendVarintField(b, 10, uint64(*m.DeletionGracePeriodSeconds))
	}
	b = appendStringMap(b, 11, m.Labels)
	b = appendStringMap(b, 12, m.Annotations)
	for i := range m.OwnerReferences {
		var start int
		b, start = beginMessage(b, 13)
		b = endMessage(appendOwnerReference(b, &m.OwnerReferences[i]), start)
	}
	for _, f := range m.Finalizers {
		b = appendString(b, 14, f)
	}
	for i := range m.ManagedFields {
		var start int
		b, start = beginMessage(b, 17)
		b = endMessage(appendManagedFieldsEntry(b, &m.ManagedFields[i]), start)
	}
	return b
}

// decodeObjectMeta reads an ObjectMeta body into m, which should be zero.
//
// Its strings (and those of labels and annotations) share one copy of data, as the
// fields of one object live and die together.
func decodeObjectMeta(data []byte, m *scheme.ObjectMeta) error {
	r := sharedReader(data, "ObjectMeta")
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			m.Name, err = r.string()
		case 2:
			m.GenerateName, err = r.string()
		case 3:
			m.Namespace, err = r.string()
		case 4:
			m.SelfLink, err = r.string()
		case 5:
			var s string
			s, err = r.string()
			m.UID = scheme.UID(s)
		case 6:
			m.ResourceVersion, err = r.string()
		case 7:
			m.Generation, err = r.int64()
		case 8:
			var v []byte
			if v, err = r.bytes(); err == nil {
				m.CreationTimestamp, err = decodeTime(v)
			}
		case 9:
			var v []byte
			if v, err = r.bytes(); err == nil {
				var t scheme.Time
				t, err = decodeTime(v)
				m.DeletionTimestamp = &t
			}
		case 10:
			var n int64
			n, err = r.int64()
			m.DeletionGracePeriodSeconds = &n
		case 11, 12:
			var entry reader
			if entry, err = r.embedded("map entry"); err == nil {
				target := &m.Labels
				if r.num == 12 {
					target = &m.Annotations
				}
				if *target == nil {
					*target = make(map[string]string, 4)
				}
				err = decodeMapEntryFrom(entry, *target)
			}
		case 13:
			var sub reader
			if sub, err = r.embedded("OwnerReference"); err == nil {
				var o scheme.OwnerReference
				err = decodeOwnerReference(sub, &o)
				m.OwnerReferences = append(m.OwnerReferences, o)
			}
		case 14:
			var s string
			s, err = r.string()
			m.Finalizers = append(m.Finalizers, s)
		case 17:
			var sub reader
			if sub, err = r.embedded("ManagedFieldsEntry"); err == nil {
				var e scheme.ManagedFieldsEntry
				err = decodeManagedFieldsEntry(sub, &e)
				m.ManagedFields = append(m.ManagedFields, e)
			}
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendOwnerReference appends the body of an OwnerReference.
func appendOwnerReference(b []byte, o *scheme.OwnerReference) []byte {
	b = appendString(b, 1, o.Kind)
	b = appendString(b, 3, o.Name)
	b = appendString(b, 4, string(o.UID))
	b = appendString(b, 5, o.APIVersion)
	if o.Controller != nil {
		b = appendBoolField(b, 6, *o.Controller)
	}
	if o.BlockOwnerDeletion != nil {
		b = appendBoolField(b, 7, *o.BlockOwnerDeletion)
	}
	return b
}

// decodeOwnerReference reads an OwnerReference body from r (its strings cut from r's
// shared copy, if it has one).
func decodeOwnerReference(r reader, o *scheme.OwnerReference) error {
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			o.Kind, err = r.string()
		case 3:
			o.Name, err = r.string()
		case 4:
			var s string
			s, err = r.string()
			o.UID = scheme.UID(s)
		case 5:
			o.APIVersion, err = r.string()
		case 6, 7:
			var v bool
			v, err = r.bool()
			if r.num == 6 {
				o.Controller = &v
			} else {
				o.BlockOwnerDeletion = &v
			}
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendManagedFieldsEntry appends the body of a ManagedFieldsEntry.
func appendManagedFieldsEntry(b []byte, e *scheme.ManagedFieldsEntry) []byte {
	b = appendString(b, 1, e.Manager)
	b = appendString(b, 2, string(e.Operation))
	b = appendString(b, 3, e.APIVersion)
	if e.Time != nil {
		b = appendTime(b, 4, e.Time.Time)
	}
	b = appendString(b, 6, e.FieldsType)
	if e.FieldsV1 != nil {
		var start int
		b, start = beginMessage(b, 7)
		if e.FieldsV1.Raw != nil {
			b = appendBytesField(b, 1, e.FieldsV1.Raw)
		}
		b = endMessage(b, start)
	}
	return appendString(b, 8, e.Subresource)
}

// decodeManagedFieldsEntry reads a ManagedFieldsEntry body from r (its strings cut
// from r's shared copy, if it has one).
func decodeManagedFieldsEntry(r reader, e *scheme.ManagedFieldsEntry) error {
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			e.Manager, err = r.string()
		case 2:
			var s string
			s, err = r.string()
			e.Operation = scheme.ManagedFieldsOperationType(s)
		case 3:
			e.APIVersion, err = r.string()
		case 4:
			var v []byte
			if v, err = r.bytes(); err == nil {
				var t scheme.Time
				t, err = decodeTime(v)
				e.Time = &t
			}
		case 6:
			e.FieldsType, err = r.string()
		case 7:
			var v []byte
			if v, err = r.bytes(); err == nil {
				e.FieldsV1 = &scheme.FieldsV1{}
				err = decodeRawField(v, "FieldsV1", &e.FieldsV1.Raw)
			}
		case 8:
			e.Subresource, err = r.string()
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// decodeRawField reads a message whose field 1 is bytes (FieldsV1, RawExtension)
// into a copy in *raw.
func decodeRawField(data []byte, name string, raw *[]byte) error {
	r := reader{b: data, msg: name}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		if r.num == 1 {
			var v []byte
			if v, err = r.bytes(); err == nil {
				*raw = append([]byte{}, v...)
			}
		} else {
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendListMeta appends the body of a ListMeta.
func appendListMeta(b []byte, m *scheme.ListMeta) []byte {
	b = appendString(b, 1, m.SelfLink)
	b = appendString(b, 2, m.ResourceVersion)
	b = appendString(b, 3, m.Continue)
	if m.RemainingItemCount != nil {
		b = appendVarintField(b, 4, uint64(*m.RemainingItemCount))
	}
	return b
}

// decodeListMeta reads a ListMeta body.
func decodeListMeta(data []byte, m *scheme.ListMeta) error {
	r := reader{b: data, msg: "ListMeta"}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			m.SelfLink, err = r.string()
		case 2:
			m.ResourceVersion, err = r.string()
		case 3:
			m.Continue, err = r.string()
		case 4:
			var n int64
			n, err = r.int64()
			m.RemainingItemCount = &n
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendCondition appends the body of a meta/v1 Condition.
func appendCondition(b []byte, c *scheme.Condition) []byte {
	b = appendString(b, 1, c.Type)
	b = appendString(b, 2, string(c.Status))
	b = appendVarintField(b, 3, uint64(c.ObservedGeneration))
	b = appendTime(b, 4, c.LastTransitionTime.Time)
	b = appendString(b, 5, c.Reason)
	return appendString(b, 6, c.Message)
}

// decodeCondition reads a Condition body.
func decodeCondition(data []byte, c *scheme.Condition) error {
	r := reader{b: data, msg: "Condition"}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			c.Type, err = r.string()
		case 2:
			var s string
			s, err = r.string()
			c.Status = scheme.ConditionStatus(s)
		case 3:
			c.ObservedGeneration, err = r.int64()
		case 4:
			var v []byte
			if v, err = r.bytes(); err == nil {
				c.LastTransitionTime, err = decodeTime(v)
			}
		case 5:
			c.Reason, err = r.string()
		case 6:
			c.Message, err = r.string()
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendStatus appends the body of a Status.
func appendStatus(b []byte, s *scheme.Status) []byte {
	b, start := beginMessage(b, 1)
	b = endMessage(appendListMeta(b, &s.ListMeta), start)
	b = appendString(b, 2, s.Status)
	b = appendString(b, 3, s.Message)
	b = appendString(b, 4, string(s.Reason))
	if d := s.Details; d != nil {
		b, start = beginMessage(b, 5)
		b = appendString(b, 1, d.Name)
		b = appendString(b, 2, d.Group)
		b = appendString(b, 3, d.Kind)
		for i := range d.Causes {
			c := &d.Causes[i]
			var cs int
			b, cs = beginMessage(b, 4)
			b = appendString(b, 1, string(c.Type))
			b = appendString(b, 2, c.Message)
			b = appendString(b, 3, c.Field)
			b = endMessage(b, cs)
		}
		b = appendVarintField(b, 5, uint64(d.RetryAfterSeconds))
		b = appendString(b, 6, string(d.UID))
		b = endMessage(b, start)
	}
	return appendVarintField(b, 6, uint64(s.Code))
}

// decodeStatus reads a Status body. Its strings (and those of its details) share one
// copy of data.
func decodeStatus(data []byte, s *scheme.Status) error {
	r := sharedReader(data, "Status")
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			var v []byte
			if v, err = r.bytes(); err == nil {
				err = decodeListMeta(v, &s.ListMeta)
			}
		case 2:
			s.Status, err = r.string()
		case 3:
			s.Message, err = r.string()
		case 4:
			var v string
			v, err = r.string()
			s.Reason = scheme.StatusReason(v)
		case 5:
			var sub reader
			if sub, err = r.embedded("StatusDetails"); err == nil {
				s.Details = &scheme.StatusDetails{}
				err = decodeStatusDetails(sub, s.Details)
			}
		case 6:
			s.Code, err = r.int32()
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// decodeStatusDetails reads a StatusDetails body from r.
func decodeStatusDetails(r reader, d *scheme.StatusDetails) error {
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			d.Name, err = r.string()
		case 2:
			d.Group, err = r.string()
		case 3:
			d.Kind, err = r.string()
		case 4:
			var sub reader
			if sub, err = r.embedded("StatusCause"); err == nil {
				var c scheme.StatusCause
				err = decodeStatusCause(sub, &c)
				d.Causes = append(d.Causes, c)
			}
		case 5:
			d.RetryAfterSeconds, err = r.int32()
		case 6:
			var v string
			v, err = r.string()
			d.UID = scheme.UID(v)
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// decodeStatusCause reads a StatusCause body from r.
func decodeStatusCause(r reader, c *scheme.StatusCause) error {
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			var v string
			v, err = r.string()
			c.Type = scheme.CauseType(v)
		case 2:
			c.Message, err = r.string()
		case 3:
			c.Field, err = r.string()
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendPartialObjectMetadata appends the body of a PartialObjectMetadata.
func appendPartialObjectMetadata(b []byte, p *scheme.PartialObjectMetadata) []byte {
	b, start := beginMessage(b, 1)
	return endMessage(appendObjectMeta(b, &p.ObjectMeta), start)
}

// decodePartialObjectMetadata reads a PartialObjectMetadata body.
func decodePartialObjectMetadata(data []byte, p *scheme.PartialObjectMetadata) error {
	r := reader{b: data, msg: "PartialObjectMetadata"}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		if r.num == 1 {
			var v []byte
			if v, err = r.bytes(); err == nil {
				err = decodeObjectMeta(v, &p.ObjectMeta)
			}
		} else {
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}

// appendPartialObjectMetadataList appends the body of a PartialObjectMetadataList.
func appendPartialObjectMetadataList(b []byte, l *scheme.PartialObjectMetadataList) []byte {
	b, start := beginMessage(b, 1)
	b = endMessage(appendListMeta(b, &l.ListMeta), start)
	for i := range l.Items {
		b, start = beginMessage(b, 2)
		b = endMessage(appendPartialObjectMetadata(b, &l.Items[i]), start)
	}
	return b
}

// decodePartialObjectMetadataList reads a PartialObjectMetadataList body. Items carry
// no apiVersion and kind on the wire and, as with apimachinery, get none.
func decodePartialObjectMetadataList(data []byte, l *scheme.PartialObjectMetadataList) error {
	r := reader{b: data, msg: "PartialObjectMetadataList"}
	if n := countField(data, 2); n > 0 {
		l.Items = make([]scheme.PartialObjectMetadata, 0, n)
	}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		switch r.num {
		case 1:
			var v []byte
			if v, err = r.bytes(); err == nil {
				err = decodeListMeta(v, &l.ListMeta)
			}
		case 2:
			var v []byte
			if v, err = r.bytes(); err == nil {
				l.Items = append(l.Items, scheme.PartialObjectMetadata{})
				err = decodePartialObjectMetadata(v, &l.Items[len(l.Items)-1])
			}
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
}
