package scheme

// ExtensionCloner is implemented by a scheme extension (see [Scheme.Extension]) that
// holds registrations, such as conversion functions or OpenAPI schemas: [Scheme.Clone]
// carries it over to the copy by calling CloneExtension. An extension that does not
// implement it is a cache built from the scheme, which the copy builds again on first
// use.
type ExtensionCloner interface {
	// CloneExtension returns an independent copy of the extension's registrations.
	CloneExtension() any
}

// Clone returns an independent copy of s: its kinds, resources, version priorities and
// the registrations of its extensions (ExtensionCloner). Registering in the copy leaves
// s unchanged, which is how a server installs a new set of CustomResourceDefinitions
// beside the host's own kinds while requests are still served from s.
func (s *Scheme) Clone() *Scheme {
	c := New()
	for gvk, t := range s.kindToType {
		c.kindToType[gvk] = t
	}
	for t, kinds := range s.typeToKinds {
		c.typeToKinds[t] = append([]GroupVersionKind(nil), kinds...)
	}
	for gvk := range s.unstructuredKinds {
		c.unstructuredKinds[gvk] = true
	}
	for g, vs := range s.versionPriority {
		c.versionPriority[g] = append([]string(nil), vs...)
	}
	for gr, r := range s.resources {
		rc := *r
		c.resources[gr] = &rc
	}
	for gk, gr := range s.kindToResource {
		c.kindToResource[gk] = gr
	}
	s.extensions.Range(func(key, value any) bool {
		if ec, ok := value.(ExtensionCloner); ok {
			c.extensions.Store(key, ec.CloneExtension())
		}
		return true
	})
	return c
}
