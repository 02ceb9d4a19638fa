package scheme

// ObjectKind reads and writes the apiVersion and kind of a value.
type ObjectKind interface {
	GroupVersionKind() GroupVersionKind
	SetGroupVersionKind(GroupVersionKind)
}

// Kinded is any API value that carries apiVersion and kind on the wire: stored objects,
// lists, Status, Scale, Table. Embedding TypeMeta satisfies it.
type Kinded interface {
	GetObjectKind() ObjectKind
}

// MetaAccessor reads and writes an object's metadata. *ObjectMeta implements it, and so
// does *Unstructured (backed by its map), so every package handles both alike.
type MetaAccessor interface {
	GetName() string
	SetName(string)
	GetGenerateName() string
	SetGenerateName(string)
	GetNamespace() string
	SetNamespace(string)
	GetSelfLink() string
	SetSelfLink(string)
	GetUID() UID
	SetUID(UID)
	GetResourceVersion() string
	SetResourceVersion(string)
	GetGeneration() int64
	SetGeneration(int64)
	GetCreationTimestamp() Time
	SetCreationTimestamp(Time)
	GetDeletionTimestamp() *Time
	SetDeletionTimestamp(*Time)
	GetDeletionGracePeriodSeconds() *int64
	SetDeletionGracePeriodSeconds(*int64)
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
	GetOwnerReferences() []OwnerReference
	SetOwnerReferences([]OwnerReference)
	GetFinalizers() []string
	SetFinalizers([]string)
	GetManagedFields() []ManagedFieldsEntry
	SetManagedFields([]ManagedFieldsEntry)
}

// Object is what every stored kind implements. A Go struct satisfies it by embedding
// TypeMeta (`json:",inline"`) and ObjectMeta (`json:"metadata,omitempty"`) and being used
// through a pointer; Unstructured satisfies it for kinds known only by schema.
type Object interface {
	Kinded
	MetaAccessor
}

// ListMetaAccessor reads and writes a list's metadata.
type ListMetaAccessor interface {
	GetResourceVersion() string
	SetResourceVersion(string)
	GetContinue() string
	SetContinue(string)
	GetRemainingItemCount() *int64
	SetRemainingItemCount(*int64)
	GetSelfLink() string
	SetSelfLink(string)
}

// ListObject is a list kind: TypeMeta, ListMeta under "metadata", and an Items slice of a
// kind's values (or pointers). A Go struct satisfies it by embedding TypeMeta and
// ListMeta; ExtractList and SetList reach its items.
type ListObject interface {
	Kinded
	ListMetaAccessor
}
