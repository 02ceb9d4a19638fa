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
	// ConnectMethods, when set, make the subresource a connection to what runs the
	// object (kube's rest.Connecter: pods/exec, pods/proxy, nodes/proxy; and pods/log):
	// the HTTP methods it accepts, each authorized as its usual verb (POST as create),
	// and answered by the Connector of the parent's strategy without reading or writing
	// the object through the usual verbs. Verbs are then only what discovery lists.
	ConnectMethods []string
	// ConnectPath says the URL's path after the subresource belongs to the connection
	// (kube's proxy subresources take it as their "path" option).
	ConnectPath bool
	// ConnectVerb, when set, is a verb every request on the connection must also be
	// authorized for (kube's pods/exec, attach and portforward ask for create, so a
	// websocket GET needs what a POST needs).
	ConnectVerb string
}

// Connects reports whether the subresource serves the HTTP method as a connection
// (ConnectMethods).
func (s *Subresource) Connects(method string) bool { return slices.Contains(s.ConnectMethods, method) }

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
