package scheme

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Scheme is the registry of a server's kinds: which Go type (or schema only) backs each
// group/version/kind, the resources that serve them, their scope and names, and the
// version order of each group. Register everything before serving; after that a Scheme
// is safe for concurrent reads.
type Scheme struct {
	kindToType        map[GroupVersionKind]reflect.Type
	typeToKinds       map[reflect.Type][]GroupVersionKind
	unstructuredKinds map[GroupVersionKind]bool
	versionPriority   map[string][]string
	resources         map[GroupResource]*Resource
	kindToResource    map[GroupKind]GroupResource
	extensions        sync.Map
}

// New returns an empty Scheme.
func New() *Scheme {
	return &Scheme{
		kindToType:        map[GroupVersionKind]reflect.Type{},
		typeToKinds:       map[reflect.Type][]GroupVersionKind{},
		unstructuredKinds: map[GroupVersionKind]bool{},
		versionPriority:   map[string][]string{},
		resources:         map[GroupResource]*Resource{},
		kindToResource:    map[GroupKind]GroupResource{},
	}
}

// Resource describes how a kind is served: its names, scope, subresources, the fields a
// field selector may name and the columns of its table output.
type Resource struct {
	Group string
	// Kind is the kind the resource serves; ListKind defaults to Kind+"List".
	Kind     string
	ListKind string
	// Plural is the resource name in URLs ("widgets"); Singular defaults to lower(Kind).
	Plural     string
	Singular   string
	ShortNames []string
	Categories []string
	Namespaced bool
	// Verbs are the verbs the resource serves (its subresources have their own), in the
	// order discovery lists them; the handler answers any other verb on its paths with
	// kube's 405 MethodNotAllowed (404 on a path that serves no verb at all). AddResource
	// sets nil to AllVerbs; a create-only resource such as SelfSubjectAccessReview
	// lists just "create", and Namespace every verb but "deletecollection", as
	// kube-apiserver does.
	Verbs []string
	// StatusSubresource serves /status: PUT and PATCH there change only .status, and
	// writes to the main resource leave .status as it was.
	StatusSubresource bool
	// Scale, when set, serves /scale as an autoscaling/v1 Scale read from and written to
	// the given paths.
	Scale *ScaleSubresource
	// SelectableFields are field paths (for example "spec.color") a field selector may use,
	// besides metadata.name and metadata.namespace, which every kind has.
	SelectableFields []string
	// FieldPaths maps a selectable field to the JSON path its value is read from, for a
	// field whose selector name is not its path (a Job's status.successful is
	// status.succeeded, as kube's JobToSelectableFields names it).
	FieldPaths map[string]string
	// PrinterColumns are the columns of table output besides Name and Age.
	PrinterColumns []PrinterColumn
	// StorageVersion is the version objects are stored at; defaults to the group's preferred.
	StorageVersion string
	// AllowCreateOnUpdate lets a PUT to a missing object create it.
	AllowCreateOnUpdate bool
	// Deprecations marks served versions as deprecated, like a CRD's
	// versions[].deprecated: a request at such a version gets its text as a Warning
	// header ("" means kube-apiserver's default text).
	Deprecations map[string]string
	// SharesStorageWith names another resource whose objects this one serves, as
	// kube-apiserver serves events.k8s.io events from the core events' storage: both
	// use that resource's storage keys and storage version, so an object written
	// through one is read through the other. The two kinds convert across their groups
	// with the functions conversion.RegisterAcrossGroups registered for them.
	SharesStorageWith GroupResource
	// NameValidation checks the name of a new object (and, with prefix true, a
	// generateName), returning one message per problem; nil means a DNS subdomain
	// (validation.NameIsDNSSubdomain), the rule of most kinds. kube-apiserver lets RBAC
	// objects take any path segment ("system:controller:foo"): such kinds set
	// validation.NameIsPathSegment.
	NameValidation func(name string, prefix bool) []string
}

// AllVerbs are the verbs a resource serves unless Resource.Verbs says otherwise, in the
// order kube-apiserver's discovery lists those of its built-in resources (sorted).
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// Serves reports whether the resource serves the verb (one of AllVerbs).
func (r *Resource) Serves(verb string) bool { return slices.Contains(r.Verbs, verb) }

// GroupResource returns the resource's group and plural name.
func (r *Resource) GroupResource() GroupResource {
	return GroupResource{Group: r.Group, Resource: r.Plural}
}

// GroupKind returns the resource's group and kind.
func (r *Resource) GroupKind() GroupKind { return GroupKind{Group: r.Group, Kind: r.Kind} }

// HasSubresource reports whether the named subresource ("status", "scale") is served.
func (r *Resource) HasSubresource(name string) bool {
	switch name {
	case "status":
		return r.StatusSubresource
	case "scale":
		return r.Scale != nil
	}
	return false
}

// Subresources lists the served subresources, in the order discovery shows them.
func (r *Resource) Subresources() []string {
	var out []string
	if r.StatusSubresource {
		out = append(out, "status")
	}
	if r.Scale != nil {
		out = append(out, "scale")
	}
	return out
}

// ScaleSubresource says where a kind keeps what autoscaling/v1 Scale exposes, as
// dotted JSON paths like CRDs' scale subresource (".spec.replicas").
type ScaleSubresource struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	// LabelSelectorPath, optional, points at a string holding the serialized label selector.
	LabelSelectorPath string
	// SelectorIsLabelSet says LabelSelectorPath holds a map of labels (a
	// ReplicationController's spec.selector), which the Scale serves as the string of
	// the selector that matches them all, as kube's labels.SelectorFromSet renders it.
	SelectorIsLabelSet bool
}

// PrinterColumn is one column of table output, read from the object by a JSONPath
// expression like CRDs' additionalPrinterColumns, or computed by Cell where a JSONPath
// cannot say it (kube's "1/3" READY of a Deployment, a Pod's STATUS).
type PrinterColumn struct {
	Name        string
	Type        string // integer, number, string, boolean or date
	Format      string
	Description string
	JSONPath    string // for example ".spec.color"
	Priority    int32
	// Cell, when set, computes the cell from the object (of the kind's Go type, at the
	// version the client asked for) instead of JSONPath; it returns a string, an int64, a
	// float64, a bool or nil.
	Cell func(obj Object) any
}

// NotRegisteredError says a kind or Go type is unknown to the scheme.
type NotRegisteredError struct {
	GVK  GroupVersionKind
	Type reflect.Type
}

func (e *NotRegisteredError) Error() string {
	if e.Type != nil {
		return fmt.Sprintf("no kind is registered for the type %v", e.Type)
	}
	if e.GVK.Kind == "" {
		return fmt.Sprintf("no kind is registered for version %q", e.GVK.GroupVersion().String())
	}
	return fmt.Sprintf("no kind %q is registered for version %q", e.GVK.Kind, e.GVK.GroupVersion().String())
}

// AddKnownTypes registers Go types as kinds of a group version; each kind is named after
// its Go type. Pass pointers to zero values: s.AddKnownTypes(gv, &Widget{}, &WidgetList{}).
func (s *Scheme) AddKnownTypes(gv GroupVersion, objs ...Kinded) {
	for _, obj := range objs {
		t := structType(obj)
		s.AddKnownTypeWithName(gv.WithKind(t.Name()), obj)
	}
}

// AddKnownTypeWithName registers a Go type under an explicit kind name. Registering the
// same kind with a different type panics: that is a programming error.
func (s *Scheme) AddKnownTypeWithName(gvk GroupVersionKind, obj Kinded) {
	if gvk.Version == "" || gvk.Kind == "" {
		panic(fmt.Sprintf("scheme: version and kind are required, got %v", gvk))
	}
	t := structType(obj)
	if old, ok := s.kindToType[gvk]; ok && old != t {
		panic(fmt.Sprintf("scheme: kind %v is already registered as %v, not %v", gvk, old, t))
	}
	if _, ok := s.kindToType[gvk]; ok {
		return
	}
	s.kindToType[gvk] = t
	s.typeToKinds[t] = append(s.typeToKinds[t], gvk)
}

// AddUnstructuredKind registers a kind that has no Go type: it is created, decoded and
// stored as Unstructured (a list kind as UnstructuredList).
func (s *Scheme) AddUnstructuredKind(gvk GroupVersionKind) {
	if gvk.Version == "" || gvk.Kind == "" {
		panic(fmt.Sprintf("scheme: version and kind are required, got %v", gvk))
	}
	s.unstructuredKinds[gvk] = true
}

func structType(obj any) reflect.Type {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("scheme: a kind must be registered as a pointer to a struct, got %v", t))
	}
	return t.Elem()
}

// SetVersionPriority sets the order of a group's versions, most preferred first. Without
// it, versions are ordered like Kubernetes does (GA over beta over alpha, higher first).
func (s *Scheme) SetVersionPriority(group string, versions ...string) {
	s.versionPriority[group] = slices.Clone(versions)
}

// AddResource registers how a kind is served. The kind must be registered in at least one
// version of the group first.
func (s *Scheme) AddResource(r Resource) error {
	if r.Kind == "" || r.Plural == "" {
		return fmt.Errorf("scheme: a resource needs a kind and a plural name, got %+v", r)
	}
	if len(s.KindVersions(GroupKind{Group: r.Group, Kind: r.Kind})) == 0 {
		return fmt.Errorf("scheme: kind %s is not registered in any version", GroupKind{Group: r.Group, Kind: r.Kind})
	}
	if r.ListKind == "" {
		r.ListKind = r.Kind + "List"
	}
	if r.Singular == "" {
		r.Singular = strings.ToLower(r.Kind)
	}
	if r.Verbs == nil {
		r.Verbs = AllVerbs
	}
	for i, v := range r.Verbs {
		if !slices.Contains(AllVerbs, v) || slices.Contains(r.Verbs[:i], v) {
			return fmt.Errorf("scheme: resource %s: verb %q is not one of %q or is listed twice", r.GroupResource(), v, AllVerbs)
		}
	}
	r.Verbs = slices.Clip(slices.Clone(r.Verbs))
	gr := r.GroupResource()
	if _, ok := s.resources[gr]; ok {
		return fmt.Errorf("scheme: resource %s is already registered", gr)
	}
	rc := r
	s.resources[gr] = &rc
	s.kindToResource[r.GroupKind()] = gr
	return nil
}

// New creates a zero object of the kind: a pointer to its Go type with apiVersion and kind
// set, or an Unstructured (UnstructuredList) for schema-only kinds.
func (s *Scheme) New(gvk GroupVersionKind) (Kinded, error) {
	if t, ok := s.kindToType[gvk]; ok {
		obj := reflect.New(t).Interface().(Kinded)
		if gvk.Version != InternalVersion {
			obj.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return obj, nil
	}
	if s.unstructuredKinds[gvk] {
		if s.isListKind(gvk) {
			l := &UnstructuredList{}
			l.SetGroupVersionKind(gvk)
			return l, nil
		}
		u := &Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return nil, &NotRegisteredError{GVK: gvk}
}

func (s *Scheme) isListKind(gvk GroupVersionKind) bool {
	for _, r := range s.resources {
		if r.Group == gvk.Group && r.ListKind == gvk.Kind {
			return true
		}
	}
	return strings.HasSuffix(gvk.Kind, "List")
}

// Recognizes reports whether the kind is registered, with a Go type or as unstructured.
func (s *Scheme) Recognizes(gvk GroupVersionKind) bool {
	_, ok := s.kindToType[gvk]
	return ok || s.unstructuredKinds[gvk]
}

// IsUnstructured reports whether the kind is registered without a Go type.
func (s *Scheme) IsUnstructured(gvk GroupVersionKind) bool { return s.unstructuredKinds[gvk] }

// TypeFor returns the Go struct type registered for the kind.
func (s *Scheme) TypeFor(gvk GroupVersionKind) (reflect.Type, bool) {
	t, ok := s.kindToType[gvk]
	return t, ok
}

// ObjectKinds returns every kind the value's Go type is registered as. For Unstructured
// values it returns the kind their apiVersion and kind fields name, if registered.
func (s *Scheme) ObjectKinds(obj any) ([]GroupVersionKind, error) {
	switch o := obj.(type) {
	case *Unstructured:
		gvk := o.GroupVersionKind()
		if !s.Recognizes(gvk) {
			return nil, &NotRegisteredError{GVK: gvk}
		}
		return []GroupVersionKind{gvk}, nil
	case *UnstructuredList:
		gvk := o.GroupVersionKind()
		if !s.Recognizes(gvk) {
			return nil, &NotRegisteredError{GVK: gvk}
		}
		return []GroupVersionKind{gvk}, nil
	}
	t := reflect.TypeOf(obj)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kinds, ok := s.typeToKinds[t]
	if !ok {
		return nil, &NotRegisteredError{Type: t}
	}
	return kinds, nil
}

// KindFor returns the kind of the value in the given group version: the one registered
// for its Go type there. For Unstructured values gv is ignored.
func (s *Scheme) KindFor(obj any, gv GroupVersion) (GroupVersionKind, error) {
	kinds, err := s.ObjectKinds(obj)
	if err != nil {
		return GroupVersionKind{}, err
	}
	switch obj.(type) {
	case *Unstructured, *UnstructuredList:
		return kinds[0], nil
	}
	for _, k := range kinds {
		if k.GroupVersion() == gv {
			return k, nil
		}
	}
	if len(kinds) == 1 && gv.Empty() {
		return kinds[0], nil
	}
	return GroupVersionKind{}, &NotRegisteredError{GVK: gv.WithKind(kinds[0].Kind)}
}

// KindVersions returns the versions (external ones first in priority order, then the
// internal version if registered) in which the kind is registered.
func (s *Scheme) KindVersions(gk GroupKind) []string {
	var out []string
	hasInternal := false
	for _, v := range s.Versions(gk.Group) {
		if s.Recognizes(gk.WithVersion(v)) {
			out = append(out, v)
		}
	}
	if s.Recognizes(gk.WithVersion(InternalVersion)) {
		hasInternal = true
	}
	if hasInternal {
		out = append(out, InternalVersion)
	}
	return out
}

// Groups returns every group with a registered kind, sorted by name.
func (s *Scheme) Groups() []string {
	seen := map[string]bool{}
	for gvk := range s.kindToType {
		seen[gvk.Group] = true
	}
	for gvk := range s.unstructuredKinds {
		seen[gvk.Group] = true
	}
	out := make([]string, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// Versions returns the external versions of a group, most preferred first.
func (s *Scheme) Versions(group string) []string {
	seen := map[string]bool{}
	add := func(gvk GroupVersionKind) {
		if gvk.Group == group && gvk.Version != InternalVersion {
			seen[gvk.Version] = true
		}
	}
	for gvk := range s.kindToType {
		add(gvk)
	}
	for gvk := range s.unstructuredKinds {
		add(gvk)
	}
	var out []string
	for _, v := range s.versionPriority[group] {
		if seen[v] {
			out = append(out, v)
			delete(seen, v)
		}
	}
	rest := make([]string, 0, len(seen))
	for v := range seen {
		rest = append(rest, v)
	}
	sort.Slice(rest, func(i, j int) bool { return CompareVersions(rest[i], rest[j]) > 0 })
	return append(out, rest...)
}

// PreferredVersion returns the group's most preferred external version, or "".
func (s *Scheme) PreferredVersion(group string) string {
	if vs := s.Versions(group); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Resource returns the registration of a resource by group and plural name.
func (s *Scheme) Resource(gr GroupResource) (*Resource, bool) {
	r, ok := s.resources[gr]
	return r, ok
}

// ResourceFor returns the resource that serves a kind.
func (s *Scheme) ResourceFor(gk GroupKind) (*Resource, bool) {
	gr, ok := s.kindToResource[gk]
	if !ok {
		return nil, false
	}
	return s.resources[gr], true
}

// LookupResource finds a resource of a group by plural, singular or short name, the way
// kubectl resolves what a user typed. Names compare case-insensitively.
func (s *Scheme) LookupResource(group, name string) (*Resource, bool) {
	name = strings.ToLower(name)
	if r, ok := s.resources[GroupResource{Group: group, Resource: name}]; ok {
		return r, true
	}
	for _, r := range s.Resources() {
		if r.Group != group {
			continue
		}
		if strings.ToLower(r.Singular) == name || slices.Contains(r.ShortNames, name) || strings.ToLower(r.Kind) == name {
			return r, true
		}
	}
	return nil, false
}

// Resources returns every registered resource, sorted by group then plural name.
func (s *Scheme) Resources() []*Resource {
	out := make([]*Resource, 0, len(s.resources))
	for _, r := range s.resources {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Plural < out[j].Plural
	})
	return out
}

// ServedVersions returns the external versions at which a resource is served: those in
// which its kind is registered, most preferred first.
func (s *Scheme) ServedVersions(r *Resource) []string {
	var out []string
	for _, v := range s.Versions(r.Group) {
		if s.Recognizes(GroupVersionKind{Group: r.Group, Version: v, Kind: r.Kind}) {
			out = append(out, v)
		}
	}
	return out
}

// StorageResource returns the resource whose storage r's objects live in: the one r
// shares storage with (Resource.SharesStorageWith) when it is registered, else r.
func (s *Scheme) StorageResource(r *Resource) *Resource {
	if r.SharesStorageWith == (GroupResource{}) {
		return r
	}
	if shared, ok := s.Resource(r.SharesStorageWith); ok {
		return shared
	}
	return r
}

// StorageVersion returns the version a resource's objects are stored at.
func (s *Scheme) StorageVersion(r *Resource) string {
	if r.StorageVersion != "" {
		return r.StorageVersion
	}
	if vs := s.ServedVersions(r); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Extension returns the value kept under key for this scheme, creating it with init on
// first use. Packages above scheme keep their per-scheme registries and caches here
// (conversion functions, compiled plans) without scheme knowing about them. Use an
// unexported key type, as with context values.
func (s *Scheme) Extension(key any, init func() any) any {
	if v, ok := s.extensions.Load(key); ok {
		return v
	}
	v, _ := s.extensions.LoadOrStore(key, init())
	return v
}

var kubeVersionRE = regexp.MustCompile(`^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$`)

// CompareVersions orders version strings like Kubernetes: GA above beta above alpha,
// higher numbers above lower, and versions not of the form vN[alpha|betaM] below all
// of those, alphabetically. It returns >0 if a ranks above b, <0 if below, 0 if equal.
func CompareVersions(a, b string) int {
	rank := func(v string) (ok bool, major, level, minor int) {
		m := kubeVersionRE.FindStringSubmatch(v)
		if m == nil {
			return false, 0, 0, 0
		}
		major, _ = strconv.Atoi(m[1])
		switch m[2] {
		case "":
			level = 3
		case "beta":
			level = 2
		case "alpha":
			level = 1
		}
		if m[3] != "" {
			minor, _ = strconv.Atoi(m[3])
		}
		return true, major, level, minor
	}
	aok, amaj, alev, amin := rank(a)
	bok, bmaj, blev, bmin := rank(b)
	switch {
	case aok && !bok:
		return 1
	case !aok && bok:
		return -1
	case !aok && !bok:
		return strings.Compare(b, a)
	case alev != blev:
		return alev - blev
	case amaj != bmaj:
		return amaj - bmaj
	}
	return amin - bmin
}
