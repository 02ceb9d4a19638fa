package scheme

import "slices"

// Subresource is a subresource of a resource besides status and scale, which have
// fields of their own on Resource: one that writes a part of its parent object
// (pods/ephemeralcontainers, pods/resize: Verbs get, patch and update, the parent's
// kind as its body) or one that performs an action on it (pods/binding, pods/eviction:
// Verbs create, a body of another kind). The registry's strategy of the parent says
// what a write keeps or what the action does; a subresource without one is not served.
type Subresource struct {
	// Name is the path segment after the object's name ("binding").
	Name string
	// Verbs are the verbs served, in the order discovery lists them: {"create"} for an
	// action, {"get", "patch", "update"} for a part of the parent.
	Verbs []string
	// Kind is the kind of the body and of discovery's entry (policy/v1 Eviction); the
	// zero value means the parent's kind at the request's version.
	Kind GroupVersionKind
}

// Serves reports whether the subresource serves the verb.
func (s *Subresource) Serves(verb string) bool { return slices.Contains(s.Verbs, verb) }

// Subresource returns the entry of OtherSubresources named name, or nil (always nil
// for "status" and "scale", which have fields of their own).
func (r *Resource) Subresource(name string) *Subresource {
	for i := range r.OtherSubresources {
		if r.OtherSubresources[i].Name == name {
			return &r.OtherSubresources[i]
		}
	}
	return nil
}
