package table

import (
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
)

// metaObject is implemented by typed kinds that embed scheme.ObjectMeta.
type metaObject interface {
	GetObjectMeta() *scheme.ObjectMeta
}

// AsPartialObjectMetadata returns obj's metadata as a meta.k8s.io/v1 PartialObjectMetadata,
// the object client-go's metadata client asks for with as=PartialObjectMetadata (for a get
// or for each watch event). Like kube-apiserver's meta.AsPartialObjectMetadata it copies
// every metadata field, managedFields included, sharing the maps and slices with obj:
// deep-copy the result before changing it.
func AsPartialObjectMetadata(obj scheme.Object) *scheme.PartialObjectMetadata {
	return asPartial(obj, SchemeGroupVersion)
}

func asPartial(obj scheme.Object, gv scheme.GroupVersion) *scheme.PartialObjectMetadata {
	p := &scheme.PartialObjectMetadata{}
	p.APIVersion, p.Kind = gv.WithKind(KindPartialObjectMetadata).ToAPIVersionAndKind()
	if m, ok := obj.(metaObject); ok {
		p.ObjectMeta = *m.GetObjectMeta()
		return p
	}
	p.ObjectMeta = scheme.ObjectMeta{
		Name:                       obj.GetName(),
		GenerateName:               obj.GetGenerateName(),
		Namespace:                  obj.GetNamespace(),
		SelfLink:                   obj.GetSelfLink(),
		UID:                        obj.GetUID(),
		ResourceVersion:            obj.GetResourceVersion(),
		Generation:                 obj.GetGeneration(),
		CreationTimestamp:          obj.GetCreationTimestamp(),
		DeletionTimestamp:          obj.GetDeletionTimestamp(),
		DeletionGracePeriodSeconds: obj.GetDeletionGracePeriodSeconds(),
		Labels:                     obj.GetLabels(),
		Annotations:                obj.GetAnnotations(),
		OwnerReferences:            obj.GetOwnerReferences(),
		Finalizers:                 obj.GetFinalizers(),
		ManagedFields:              obj.GetManagedFields(),
	}
	return p
}

// NewPartialObjectMetadataList returns a meta.k8s.io/v1 PartialObjectMetadataList of the
// objects' metadata, with the list's resourceVersion, continue token and remaining item
// count taken from listMeta (selfLink is left out, as kube-apiserver does). As in
// kube-apiserver, an empty list has nil Items, which encodes as "items": null.
func NewPartialObjectMetadataList(objs []scheme.Object, listMeta scheme.ListMetaAccessor) *scheme.PartialObjectMetadataList {
	l := &scheme.PartialObjectMetadataList{}
	l.APIVersion, l.Kind = SchemeGroupVersion.WithKind(KindPartialObjectMetadataList).ToAPIVersionAndKind()
	if listMeta != nil {
		l.ResourceVersion = listMeta.GetResourceVersion()
		l.Continue = listMeta.GetContinue()
		l.RemainingItemCount = listMeta.GetRemainingItemCount()
	}
	if len(objs) > 0 {
		l.Items = make([]scheme.PartialObjectMetadata, len(objs))
		for i, o := range objs {
			l.Items[i] = *asPartial(o, SchemeGroupVersion)
		}
	}
	return l
}

// AsPartialObjectMetadataList converts a list (a typed list or an UnstructuredList) to a
// PartialObjectMetadataList, for a list request with as=PartialObjectMetadataList.
func AsPartialObjectMetadataList(list scheme.ListObject) (*scheme.PartialObjectMetadataList, error) {
	objs, err := scheme.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("PartialObjectMetadataList from %T: %w", list, err)
	}
	return NewPartialObjectMetadataList(objs, list), nil
}
