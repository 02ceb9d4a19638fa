package storage

import "github.com/apikit-dev/apikit/scheme"

// Check fails with ErrConflict about key, in kube-apiserver's words, when obj does not
// satisfy p; a nil p holds for every object. Backends call it on each fresh read of an
// update or delete.
func (p *Preconditions) Check(key string, obj scheme.Object) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != obj.GetUID() {
		return NewErrorf(ErrConflict, key,
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, obj.GetUID())
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != obj.GetResourceVersion() {
		return NewErrorf(ErrConflict, key,
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			*p.ResourceVersion, obj.GetResourceVersion())
	}
	return nil
}
