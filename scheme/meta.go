package scheme

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/apikit-dev/apikit/internal/cborwire"
)

// UID is a unique identifier the server assigns to an object at creation.
type UID string

// TypeMeta carries apiVersion and kind. Embed it (with `json:",inline"`) in every kind.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetObjectKind returns the TypeMeta itself, so that embedding it satisfies Kinded.
func (t *TypeMeta) GetObjectKind() ObjectKind { return t }

// GroupVersionKind parses apiVersion and kind.
func (t *TypeMeta) GroupVersionKind() GroupVersionKind {
	return FromAPIVersionAndKind(t.APIVersion, t.Kind)
}

// SetGroupVersionKind sets apiVersion and kind; an empty gvk clears both.
func (t *TypeMeta) SetGroupVersionKind(gvk GroupVersionKind) {
	if gvk.Empty() {
		t.APIVersion, t.Kind = "", ""
		return
	}
	t.APIVersion, t.Kind = gvk.ToAPIVersionAndKind()
}

// Time is a timestamp that travels as an RFC 3339 string at second precision, and as
// null when zero, exactly like meta/v1 Time.
type Time struct {
	time.Time `json:"-"`
}

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// Now returns the current time truncated to what the wire keeps (seconds).
func Now() Time { return Time{time.Now().Truncate(time.Second)} }

// NowFrom is Now read from clock, or from the real time when clock is nil: servers and
// controllers take a clock so that a test can freeze the timestamps they record.
func NowFrom(clock func() time.Time) Time {
	if clock == nil {
		return Now()
	}
	return Time{clock().Truncate(time.Second)}
}

// NewUID returns a random RFC 4122 version 4 UID, as the API gives every new object
// and every request's audit ID. Its 122 random bits come from math/rand/v2's generator
// (ChaCha8, seeded from the operating system): unpredictable and unique like
// crypto/rand's, without a system call per object. A UID names; it guards nothing.
func NewUID() UID {
	var u [16]byte
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return UID(s[:])
}

// MarshalJSON writes RFC 3339 in UTC, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(time.RFC3339)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, time.RFC3339)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON accepts null (zero time) or an RFC 3339 string.
func (t *Time) UnmarshalJSON(b []byte) error { return unmarshalTimeJSON(b, &t.Time, t.UnmarshalText) }

// unmarshalTimeJSON reads a JSON timestamp of Time or MicroTime: null is the zero time,
// a string is handed to the type's own UnmarshalText.
func unmarshalTimeJSON(b []byte, t *time.Time, unmarshalText func([]byte) error) error {
	if bytes.Equal(b, []byte("null")) {
		*t = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	return unmarshalText([]byte(s))
}

// MarshalText writes RFC 3339 in UTC, or nothing when zero. It lets Time serve as a
// string in formats other than JSON (YAML, CBOR, unstructured maps).
func (t Time) MarshalText() ([]byte, error) {
	if t.IsZero() {
		return nil, nil
	}
	return t.UTC().AppendFormat(nil, time.RFC3339), nil
}

// UnmarshalText parses RFC 3339; an empty string is the zero time.
func (t *Time) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339, string(b))
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// MarshalCBOR writes what meta/v1 Time.MarshalCBOR writes under Kubernetes' CBOR
// encode mode: the RFC 3339 text in UTC as a CBOR byte string (Go strings travel as
// byte strings), or null (0xf6) when zero.
func (t Time) MarshalCBOR() ([]byte, error) {
	if t.IsZero() {
		return []byte{cborwire.Null}, nil
	}
	// One byte for the head of the usual 20-byte text, room to widen it otherwise.
	buf := make([]byte, 1, len(time.RFC3339)+3)
	buf = t.UTC().AppendFormat(buf, time.RFC3339)
	n := len(buf) - 1
	if n < 24 {
		buf[0] = cborwire.MajorBytes<<5 | byte(n)
		return buf, nil
	}
	// A year beyond 9999 or before 0 makes the text longer: a two-byte head
	// (lengths up to 255 bytes, far beyond any formatted time).
	buf = append(buf, 0)
	copy(buf[2:], buf[1:n+1])
	buf[0], buf[1] = cborwire.MajorBytes<<5|24, byte(n)
	return buf, nil
}

// UnmarshalCBOR reads what Time.MarshalCBOR and meta/v1 Time.MarshalCBOR write: null
// or undefined is the zero time, a byte or text string (definite or indefinite
// length) is parsed as RFC 3339; anything else is an error.
func (t *Time) UnmarshalCBOR(b []byte) error {
	if len(b) == 1 && (b[0] == cborwire.Null || b[0] == cborwire.Undefined) {
		t.Time = time.Time{}
		return nil
	}
	s, err := cborwire.String(b, "a time")
	if err != nil {
		return fmt.Errorf("scheme.Time: %w", err)
	}
	pt, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// Equal reports whether two times are the same instant; nil pointers are equal to each other.
func (t *Time) Equal(u *Time) bool {
	if t == nil || u == nil {
		return t == u
	}
	return t.Time.Equal(u.Time)
}

// ObjectMeta is the metadata every stored object carries. Embed it in a kind as
// `ObjectMeta `json:"metadata,omitempty"“; its methods then satisfy Object.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        UID                  `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty,omitzero"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" listType:"map" listMapKeys:"uid"`
	Finalizers                 []string             `json:"finalizers,omitempty" patchStrategy:"merge" listType:"set"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty" listType:"atomic"`
}

// GetObjectMeta returns the metadata itself; typed kinds reach it without reflection.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

func (m *ObjectMeta) GetName() string                         { return m.Name }
func (m *ObjectMeta) SetName(v string)                        { m.Name = v }
func (m *ObjectMeta) GetGenerateName() string                 { return m.GenerateName }
func (m *ObjectMeta) SetGenerateName(v string)                { m.GenerateName = v }
func (m *ObjectMeta) GetNamespace() string                    { return m.Namespace }
func (m *ObjectMeta) SetNamespace(v string)                   { m.Namespace = v }
func (m *ObjectMeta) GetSelfLink() string                     { return m.SelfLink }
func (m *ObjectMeta) SetSelfLink(v string)                    { m.SelfLink = v }
func (m *ObjectMeta) GetUID() UID                             { return m.UID }
func (m *ObjectMeta) SetUID(v UID)                            { m.UID = v }
func (m *ObjectMeta) GetResourceVersion() string              { return m.ResourceVersion }
func (m *ObjectMeta) SetResourceVersion(v string)             { m.ResourceVersion = v }
func (m *ObjectMeta) GetGeneration() int64                    { return m.Generation }
func (m *ObjectMeta) SetGeneration(v int64)                   { m.Generation = v }
func (m *ObjectMeta) GetCreationTimestamp() Time              { return m.CreationTimestamp }
func (m *ObjectMeta) SetCreationTimestamp(v Time)             { m.CreationTimestamp = v }
func (m *ObjectMeta) GetDeletionTimestamp() *Time             { return m.DeletionTimestamp }
func (m *ObjectMeta) SetDeletionTimestamp(v *Time)            { m.DeletionTimestamp = v }
func (m *ObjectMeta) GetDeletionGracePeriodSeconds() *int64   { return m.DeletionGracePeriodSeconds }
func (m *ObjectMeta) SetDeletionGracePeriodSeconds(v *int64)  { m.DeletionGracePeriodSeconds = v }
func (m *ObjectMeta) GetLabels() map[string]string            { return m.Labels }
func (m *ObjectMeta) SetLabels(v map[string]string)           { m.Labels = v }
func (m *ObjectMeta) GetAnnotations() map[string]string       { return m.Annotations }
func (m *ObjectMeta) SetAnnotations(v map[string]string)      { m.Annotations = v }
func (m *ObjectMeta) GetOwnerReferences() []OwnerReference    { return m.OwnerReferences }
func (m *ObjectMeta) SetOwnerReferences(v []OwnerReference)   { m.OwnerReferences = v }
func (m *ObjectMeta) GetFinalizers() []string                 { return m.Finalizers }
func (m *ObjectMeta) SetFinalizers(v []string)                { m.Finalizers = v }
func (m *ObjectMeta) GetManagedFields() []ManagedFieldsEntry  { return m.ManagedFields }
func (m *ObjectMeta) SetManagedFields(v []ManagedFieldsEntry) { m.ManagedFields = v }

// OwnerReference points at an object that owns this one (garbage collection, controllers).
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                UID    `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsOperationType is the operation that produced a managedFields entry.
type ManagedFieldsOperationType string

// The two operations server-side apply records.
const (
	ManagedFieldsOperationApply  ManagedFieldsOperationType = "Apply"
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// ManagedFieldsEntry records which fields one manager owns, for server-side apply.
type ManagedFieldsEntry struct {
	Manager     string                     `json:"manager,omitempty"`
	Operation   ManagedFieldsOperationType `json:"operation,omitempty"`
	APIVersion  string                     `json:"apiVersion,omitempty"`
	Time        *Time                      `json:"time,omitempty"`
	FieldsType  string                     `json:"fieldsType,omitempty"`
	FieldsV1    *FieldsV1                  `json:"fieldsV1,omitempty"`
	Subresource string                     `json:"subresource,omitempty"`
}

// FieldsV1 is the raw JSON of a field set in Kubernetes' "FieldsV1" encoding.
type FieldsV1 struct {
	Raw []byte `json:"-"`
}

// MarshalJSON writes the raw field set, or null when empty.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f.Raw == nil {
		return []byte("null"), nil
	}
	return f.Raw, nil
}

// UnmarshalJSON keeps a copy of the raw field set.
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if f == nil {
		return errors.New("scheme.FieldsV1: UnmarshalJSON on nil pointer")
	}
	if !bytes.Equal(b, []byte("null")) {
		f.Raw = append(f.Raw[:0], b...)
	}
	return nil
}

// ListMeta is the metadata of a list: the resourceVersion it was read at and paging state.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// GetListMeta returns the list metadata itself.
func (m *ListMeta) GetListMeta() *ListMeta { return m }

func (m *ListMeta) GetResourceVersion() string     { return m.ResourceVersion }
func (m *ListMeta) SetResourceVersion(v string)    { m.ResourceVersion = v }
func (m *ListMeta) GetContinue() string            { return m.Continue }
func (m *ListMeta) SetContinue(v string)           { m.Continue = v }
func (m *ListMeta) GetRemainingItemCount() *int64  { return m.RemainingItemCount }
func (m *ListMeta) SetRemainingItemCount(v *int64) { m.RemainingItemCount = v }
func (m *ListMeta) GetSelfLink() string            { return m.SelfLink }
func (m *ListMeta) SetSelfLink(v string)           { m.SelfLink = v }

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The three condition states.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is the standard shape of one observation in status.conditions (meta/v1 Condition).
type Condition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime"`
	Reason             string          `json:"reason"`
	Message            string          `json:"message"`
}

// PartialObjectMetadata is an object's metadata alone, the form metadata-only clients
// (client-go's metadata client) ask for with as=PartialObjectMetadata.
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
}

// PartialObjectMetadataList is a list of PartialObjectMetadata.
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []PartialObjectMetadata `json:"items"`
}
