package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apikit-dev/apikit/scheme"
)

// FieldManagerMaxLength is the longest field manager name kube accepts.
const FieldManagerMaxLength = 128

// ManagerFromUserAgent is kube-apiserver's default field manager for a request without
// a fieldManager parameter: the User-Agent up to its first '/', without unprintable
// characters, cut to FieldManagerMaxLength bytes ("kubectl/v1.32.0 (linux/amd64)"
// gives "kubectl").
func ManagerFromUserAgent(userAgent string) string {
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Options configure a FieldManager.
type Options struct {
	// Subresource is the subresource the manager serves ("" or "status"); entries it
	// writes carry it, and updates there keep the managed fields of the live object.
	Subresource string
	// ResetFields are top-level fields the endpoint resets whatever a client sends
	// (kube's ResetFieldsStrategy): "status" on a main resource that has a status
	// subresource, "spec" on /status. Nobody gains ownership of them through this
	// endpoint.
	ResetFields []string
	// Convert converts an unstructured object of this manager's version to another
	// version of the same kind, for managers that recorded their fields at another
	// version. Without it, those managers' entries are dropped when they would be
	// compared, as kube drops entries of versions it no longer serves.
	Convert func(obj map[string]any, gv scheme.GroupVersion) (map[string]any, error)
	// Now returns the time recorded in entries (scheme.Now when nil).
	Now func() scheme.Time
	// Empty returns the unstructured form of a new, empty object of the kind: for a Go
	// type, its zero value as it encodes ("spec": {"color": ""}), which kube compares
	// against as kube-apiserver compares against a new typed object. Nil means {}, as
	// for custom resources. It is called once, when first needed.
	Empty func() map[string]any
}

// FieldManager tracks metadata.managedFields of one kind at one version and runs
// server-side apply, on sigs.k8s.io/structured-merge-diff. It is safe for concurrent use.
type FieldManager struct {
	gvk     scheme.GroupVersionKind
	s       *scheme.Scheme
	pt      typed.ParseableType
	updater *merge.Updater
	version fieldpath.APIVersion
	opts    Options
	// ids, sets, empty, creates and updates are shared by the copies WithNow makes.
	ids     *managerIDs
	sets    *decodedSets
	empty   func() emptyObject
	creates *createShapes
	updates *updateShapes
}

// emptyObject is the kind's zero object of Options.Empty, unstructured and typed.
type emptyObject struct {
	obj map[string]any
	tv  *typed.TypedValue
}

// NewFieldManager returns the field manager of kind gvk (an external version) in s.
func NewFieldManager(s *scheme.Scheme, gvk scheme.GroupVersionKind, opts Options) (*FieldManager, error) {
	pt, err := parserFor(s, gvk)
	if err != nil {
		return nil, fmt.Errorf("patch: field manager for %v: %w", gvk, err)
	}
	fm := &FieldManager{gvk: gvk, s: s, pt: pt, version: fieldpath.APIVersion(gvk.GroupVersion().String()), opts: opts, ids: &managerIDs{}, sets: &decodedSets{}, creates: &createShapes{}, updates: &updateShapes{}}
	fm.empty = sync.OnceValue(fm.buildEmpty)
	b := &merge.UpdaterBuilder{Converter: &converter{fm: fm}}
	if len(opts.ResetFields) > 0 {
		set := fieldpath.NewSet()
		for _, f := range opts.ResetFields {
			set.Insert(fieldpath.MakePathOrDie(f))
		}
		b.IgnoreFilter = map[fieldpath.APIVersion]fieldpath.Filter{fm.version: fieldpath.NewExcludeSetFilter(set)}
	}
	fm.updater = b.BuildUpdater()
	return fm, nil
}

// stripSet are the fields kube never records as managed (its stripMetaManager).
var stripSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

func stripMeta(fields fieldpath.ManagedFields, id string) {
	vs, ok := fields[id]
	if !ok {
		return
	}
	set := vs.Set().Difference(stripSet)
	if set.Empty() {
		delete(fields, id)
		return
	}
	fields[id] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
}

// WithNow returns a FieldManager that records the times of now, sharing fm's compiled
// schema: a server with its own clock uses a field manager cached for every server of
// the scheme.
func (fm *FieldManager) WithNow(now func() scheme.Time) *FieldManager {
	c := *fm
	c.opts.Now = now
	return &c
}

func (fm *FieldManager) now() *scheme.Time {
	var t scheme.Time
	if fm.opts.Now != nil {
		t = fm.opts.Now()
	} else {
		t = scheme.Now()
	}
	t.Time = t.UTC()
	return &t
}

// withoutManagedFields returns a shallow copy of obj without metadata.managedFields.
func withoutManagedFields(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, has := md["managedFields"]; !has {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	mc := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			mc[k] = v
		}
	}
	out["metadata"] = mc
	return out
}

func (fm *FieldManager) id(manager string, op scheme.ManagedFieldsOperationType) (string, error) {
	return fm.ids.id(scheme.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: string(fm.version), Subresource: fm.opts.Subresource})
}

// gvkString formats a kind as apimachinery's GroupVersionKind.String does.
func gvkString(gvk scheme.GroupVersionKind) string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

func nameOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	n, _ := md["name"].(string)
	return ns + "/" + n
}

// Apply merges the applied configuration config (an unstructured object of this
// manager's kind and version, as decoded from application/apply-patch+yaml) into live
// (nil when the object does not exist yet) for manager, and returns the new object
// (without managedFields) and its managedFields. live's metadata.managedFields may be
// decoded JSON or a []scheme.ManagedFieldsEntry. Fields other managers own with a different value are a
// *ConflictError unless force is set, which takes them over; fields manager applied
// before and no longer applies are removed unless another manager owns them. A
// configuration of another kind, or with managedFields, is ErrMalformed.
func (fm *FieldManager) Apply(live, config map[string]any, manager string, force bool) (map[string]any, []scheme.ManagedFieldsEntry, error) {
	av, _ := config["apiVersion"].(string)
	kind, _ := config["kind"].(string)
	gv, err := scheme.ParseGroupVersion(av)
	if err != nil || gv.WithKind(kind) != fm.gvk {
		got := scheme.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
		if err != nil {
			got = scheme.GroupVersionKind{Kind: kind}
		}
		return nil, nil, malformed("invalid object type: %s", gvkString(got))
	}
	if md, ok := config["metadata"].(map[string]any); ok {
		if mf, ok := md["managedFields"]; ok && mf != nil {
			return nil, nil, malformed("metadata.managedFields must be nil")
		}
	}
	var entries []scheme.ManagedFieldsEntry
	if live != nil {
		if entries, err = ManagedFieldsFromMap(live); err != nil {
			return nil, nil, fmt.Errorf("failed to decode managed fields: %w", err)
		}
	}
	m, err := decodeManaged(entries, fm.ids, fm.sets)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to decode managed fields: %w", err)
	}
	liveObj := map[string]any{}
	if live != nil {
		liveObj = withoutManagedFields(live)
	}
	cfgTV, err := toTyped(fm.pt, config)
	if err != nil {
		return nil, nil, malformed("failed to create typed patch object (%s; %s): %v", nameOf(config), gvkString(fm.gvk), err)
	}
	liveTV, err := toTyped(fm.pt, liveObj, typed.AllowDuplicates)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create typed live object (%s; %s): %w", nameOf(liveObj), gvkString(fm.gvk), err)
	}
	if len(m.fields) == 0 {
		// kube's skipNonAppliedManager: the first apply to an object nobody manages yet
		// finds its existing fields owned by "before-first-apply", so it conflicts
		// where it would change them.
		if _, err := fm.recordUpdate(&m, fm.emptyTV(), liveTV, beforeFirstApply); err != nil {
			return nil, nil, fmt.Errorf("failed to create manager for existing fields: %w", err)
		}
	}
	id, err := fm.id(manager, scheme.ManagedFieldsOperationApply)
	if err != nil {
		return nil, nil, err
	}
	newTV, fields, err := fm.updater.Apply(liveTV, cfgTV, fm.version, m.fields.Copy(), id, force)
	var conflicts merge.Conflicts
	if errors.As(err, &conflicts) && manager == kubectlManager {
		// kube's lastAppliedManager: kubectl may take over, without --force-conflicts,
		// the fields its client-side apply annotation says it set and still match.
		if allowed := fm.allowedByLastApplied(liveObj, liveTV); allowed != nil {
			var rest merge.Conflicts
			for _, c := range conflicts {
				if !allowed.Has(c.Path) {
					rest = append(rest, c)
				}
			}
			if len(rest) == 0 {
				newTV, fields, err = fm.updater.Apply(liveTV, cfgTV, fm.version, m.fields.Copy(), id, true)
				conflicts = nil
			} else {
				err, conflicts = rest, rest
			}
		}
	}
	if err != nil {
		if errors.As(err, &conflicts) {
			ce := &ConflictError{}
			for _, c := range conflicts {
				ce.Conflicts = append(ce.Conflicts, Conflict{Manager: printManager(c.Manager), Field: c.Path.String(), id: c.Manager})
			}
			return nil, nil, ce
		}
		return nil, nil, rejected("%s", err.Error())
	}
	stripMeta(fields, id)
	m.fields = fields
	out := liveObj
	if newTV != nil {
		m.times[id] = fm.now()
		u, ok := newTV.AsValue().Unstructured().(map[string]any)
		if !ok {
			return nil, nil, rejected("apply produced a %T, not an object", newTV.AsValue().Unstructured())
		}
		out = u
	}
	if manager == kubectlManager && lastApplied(liveObj) != "" {
		// kube's lastAppliedUpdater keeps kubectl's client-side annotation in step with
		// what kubectl now applies server-side.
		out = withLastApplied(out, config)
	}
	enc, err := m.capAndEncode()
	return out, enc, err
}

// kubectlManager is the field manager of `kubectl apply --server-side`, the only one
// kube lets inherit the fields of client-side apply.
const kubectlManager = "kubectl"

// LastAppliedAnnotation is where client-side `kubectl apply` keeps the configuration it
// applied last.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// totalAnnotationSizeLimit is kube's limit on the size of all annotations together.
const totalAnnotationSizeLimit = 256 * 1024

func annotationsOf(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]any)
	return a
}

func lastApplied(obj map[string]any) string {
	v, _ := annotationsOf(obj)[LastAppliedAnnotation].(string)
	return v
}

// allowedByLastApplied returns the fields the last-applied annotation of live claims
// and live still holds with the same value, or nil when there is no usable annotation.
func (fm *FieldManager) allowedByLastApplied(live map[string]any, liveTV *typed.TypedValue) *fieldpath.Set {
	la := lastApplied(live)
	if la == "" {
		return nil
	}
	v, err := scheme.DecodeJSONValue([]byte(la))
	if err != nil {
		return nil
	}
	last, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if av, _ := last["apiVersion"].(string); av != string(fm.version) {
		return nil
	}
	lastTV, err := toTyped(fm.pt, last)
	if err != nil {
		return nil
	}
	set, err := lastTV.ToFieldSet()
	if err != nil {
		return nil
	}
	cmp, err := lastTV.Compare(liveTV)
	if err != nil {
		return nil
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed)
}

// withLastApplied returns obj with the last-applied annotation set to config (without
// that annotation), encoded as kube encodes it; an annotation that would exceed the
// size limit is dropped instead.
func withLastApplied(obj, config map[string]any) map[string]any {
	cfg := make(map[string]any, len(config))
	for k, v := range config {
		cfg[k] = v
	}
	if md, ok := config["metadata"].(map[string]any); ok {
		mc := make(map[string]any, len(md))
		for k, v := range md {
			mc[k] = v
		}
		if a, ok := md["annotations"].(map[string]any); ok {
			ac := make(map[string]any, len(a))
			for k, v := range a {
				if k != LastAppliedAnnotation {
					ac[k] = v
				}
			}
			mc["annotations"] = ac
		}
		cfg["metadata"] = mc
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(cfg); err != nil {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md, _ := obj["metadata"].(map[string]any)
	mc := make(map[string]any, len(md)+1)
	for k, v := range md {
		mc[k] = v
	}
	ann := map[string]any{}
	size := 0
	for k, v := range annotationsOf(obj) {
		ann[k] = v
		if k != LastAppliedAnnotation {
			s, _ := v.(string)
			size += len(k) + len(s)
		}
	}
	if size+len(LastAppliedAnnotation)+buf.Len() > totalAnnotationSizeLimit {
		delete(ann, LastAppliedAnnotation)
	} else {
		ann[LastAppliedAnnotation] = buf.String()
	}
	mc["annotations"] = ann
	out["metadata"] = mc
	return out
}

// currentOperation is the temporary manager an update is computed for before its fields
// join the real manager's (kube's managedFieldsUpdater does the same).
const currentOperation = "current-operation"

// Update records the fields an update (a PUT, a non-apply patch, or a create: then live
// is nil, which stands for the kind's zero object of Options.Empty, built once) changed
// from live to obj for manager, and returns obj's new managedFields:
// the changed fields move to manager (operation Update, time now) from whoever owned
// them. obj's own managedFields are kept when it has some (a client may set them),
// otherwise live's are the base. As in kube, an existing object without managedFields
// (live has a uid) keeps none, since tracking starts with its creation or its first apply.
// As with Apply, metadata.managedFields of either object may be a
// []scheme.ManagedFieldsEntry.
func (fm *FieldManager) Update(live, obj map[string]any, manager string) ([]scheme.ManagedFieldsEntry, error) {
	if live != nil || !withoutManagedFieldsKey(obj) {
		return fm.update(live, obj, manager)
	}
	// A create without managedFields of its own: its entry depends only on the shape
	// of the object, which creates of one kind share.
	key, ok := fm.createShape(obj, manager)
	if !ok {
		return fm.update(nil, obj, manager)
	}
	if e, hit := fm.creates.get(key); hit {
		if e == nil {
			return nil, nil
		}
		out := *e
		out.FieldsV1 = &scheme.FieldsV1{Raw: bytes.Clone(e.FieldsV1.Raw)}
		out.Time = fm.now()
		return []scheme.ManagedFieldsEntry{out}, nil
	}
	entries, err := fm.update(nil, obj, manager)
	switch {
	case err != nil:
	case len(entries) == 0:
		fm.creates.put(key, nil, 0)
	case len(entries) == 1 && entries[0].FieldsV1 != nil:
		e := entries[0]
		e.FieldsV1 = &scheme.FieldsV1{Raw: bytes.Clone(e.FieldsV1.Raw)}
		e.Time = nil
		fm.creates.put(key, &e, len(e.FieldsV1.Raw))
	}
	return entries, err
}

// update is Update without the cache of creates.
func (fm *FieldManager) update(live, obj map[string]any, manager string) ([]scheme.ManagedFieldsEntry, error) {
	// Like kube's decodeLiveOrNew: the request's own entries when it has readable ones
	// (not on subresources), else the live object's, else none.
	// An explicit [] or [{}] resets them (kube's isResetManagedFields).
	var m managed
	newEntries, err := ManagedFieldsFromMap(obj)
	reset := err == nil && fm.opts.Subresource == "" && isReset(newEntries)
	if err == nil && len(newEntries) > 0 && fm.opts.Subresource == "" && !reset {
		m, err = decodeManaged(newEntries, fm.ids, fm.sets)
	}
	if reset {
		m = newManaged(fm.ids, fm.sets)
	} else if err != nil || len(m.fields) == 0 {
		var liveEntries []scheme.ManagedFieldsEntry
		if live != nil {
			liveEntries, err = ManagedFieldsFromMap(live)
		}
		if err == nil {
			m, err = decodeManaged(liveEntries, fm.ids, fm.sets)
		}
		if err != nil {
			m = newManaged(fm.ids, fm.sets)
		}
	}
	if len(m.fields) == 0 && uidOf(live) != "" {
		return nil, nil
	}
	// Update returns only managed fields, which do not depend on the order of
	// associative lists: compare both objects with those lists in key order.
	var liveObj map[string]any
	var liveSorted any
	if live != nil {
		liveObj = withoutManagedFields(live)
		liveSorted = sortedForComparison(fm.pt.Schema, fm.pt.TypeRef, liveObj)
	}
	newSorted := sortedForComparison(fm.pt.Schema, fm.pt.TypeRef, withoutManagedFields(obj))
	// An update of a shape seen before records what it recorded then.
	key, cache := fm.updateShape(m, liveSorted, newSorted, manager)
	if cache {
		if r, hit := fm.updates.get(key); hit {
			m.fields = maps.Clone(r.fields)
			if r.recorded {
				id, err := fm.id(manager, scheme.ManagedFieldsOperationUpdate)
				if err != nil {
					return nil, err
				}
				m.times[id] = fm.now()
			}
			return m.capAndEncode()
		}
	}
	liveTV := fm.emptyTV()
	if live != nil {
		if liveTV, err = toTyped(fm.pt, liveSorted, typed.AllowDuplicates); err != nil {
			return nil, fmt.Errorf("failed to create typed live object (%s; %s): %w", nameOf(liveObj), gvkString(fm.gvk), err)
		}
	}
	newTV, err := toTyped(fm.pt, newSorted, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to create typed new object (%s; %s): %w", nameOf(obj), gvkString(fm.gvk), err)
	}
	if l, n, ok := fm.differences(m, liveSorted, newSorted); ok {
		liveTV, newTV = l, n
	}
	recorded, err := fm.recordUpdate(&m, liveTV, newTV, manager)
	if err != nil {
		return nil, err
	}
	if cache {
		fm.updates.put(key, updateResult{fields: maps.Clone(m.fields), recorded: recorded}, len(key))
	}
	return m.capAndEncode()
}

// differences returns the live and new objects of an update, both valid, without the
// members they share (withoutCommonFields), for recordUpdate: what changed is all
// Compare looks at, and an update changes a few fields of an object. ok is false when
// some manager's fields are of another version, whose comparison converts the objects
// (the originals are needed then).
func (fm *FieldManager) differences(m managed, live, obj any) (liveTV, newTV *typed.TypedValue, ok bool) {
	lm, lok := live.(map[string]any)
	nm, nok := obj.(map[string]any)
	if !lok || !nok {
		return nil, nil, false
	}
	for _, vs := range m.fields {
		if vs.APIVersion() != fm.version {
			return nil, nil, false
		}
	}
	lp, np, dropped := withoutCommonFields(lm, nm)
	if !dropped {
		return nil, nil, false // nothing to spare: the originals, already checked, do
	}
	// Parts of valid objects are valid; the check is cheap on what remains.
	liveTV, err := toTyped(fm.pt, lp, typed.AllowDuplicates)
	if err != nil {
		return nil, nil, false
	}
	newTV, err = toTyped(fm.pt, np, typed.AllowDuplicates)
	if err != nil {
		return nil, nil, false
	}
	return liveTV, newTV, true
}

// beforeFirstApply owns the fields an object had before its first apply.
const beforeFirstApply = "before-first-apply"

// emptyTV is the typed empty object of the kind, built once per field manager (and the
// copies WithNow makes): every first apply compares against it.
func (fm *FieldManager) emptyTV() *typed.TypedValue {
	return fm.empty().tv
}

// buildEmpty builds the zero object from Options.Empty.
func (fm *FieldManager) buildEmpty() emptyObject {
	empty := map[string]any{}
	if fm.opts.Empty != nil {
		if e := fm.opts.Empty(); e != nil {
			empty = withoutManagedFields(e)
		}
	}
	tv, err := toTyped(fm.pt, empty, typed.AllowDuplicates)
	if err != nil {
		empty = map[string]any{}
		tv, _ = toTyped(fm.pt, empty, typed.AllowDuplicates)
	}
	return emptyObject{obj: empty, tv: tv}
}

// recordUpdate gives manager (operation Update, time now) the fields that changed from
// liveTV to newTV, taking them from their owners, as kube's managedFieldsUpdater does
// through a temporary "current-operation" manager.
func (fm *FieldManager) recordUpdate(m *managed, liveTV, newTV *typed.TypedValue, manager string) (recorded bool, err error) {
	before := m.fields
	_, fields, err := fm.updater.Update(liveTV, newTV, fm.version, maps.Clone(before), currentOperation)
	if err != nil {
		return false, err
	}
	stripMeta(fields, currentOperation)
	id, err := fm.id(manager, scheme.ManagedFieldsOperationUpdate)
	if err != nil {
		return false, err
	}
	vs, recorded := fields[currentOperation]
	if recorded {
		delete(fields, currentOperation)
		if prev, ok := fields[id]; ok {
			fields[id] = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		} else {
			fields[id] = vs
		}
		m.times[id] = fm.now()
	}
	keepUnchanged(fields, before)
	m.fields = fields
	return recorded, nil
}

// keepUnchanged puts back the sets of before that fields holds again, computed anew
// but equal: a set decoded from fieldsV1 encodes from decodedSets' cache, and most
// writes change few managers' fields, or none.
func keepUnchanged(fields, before fieldpath.ManagedFields) {
	for id, vs := range fields {
		if old, ok := before[id]; ok && old != vs && old.APIVersion() == vs.APIVersion() &&
			old.Applied() == vs.Applied() && old.Set().Equals(vs.Set()) {
			fields[id] = old
		}
	}
}

// converter lets structured-merge-diff compare field sets recorded at other versions.
type converter struct{ fm *FieldManager }

type missingVersionError struct{ version fieldpath.APIVersion }

func (e missingVersionError) Error() string {
	return fmt.Sprintf("patch: no conversion to version %s", e.version)
}

// Convert converts a typed object to version.
func (c *converter) Convert(obj *typed.TypedValue, version fieldpath.APIVersion) (*typed.TypedValue, error) {
	if version == c.fm.version {
		return obj, nil
	}
	gv, err := scheme.ParseGroupVersion(string(version))
	if err != nil || c.fm.opts.Convert == nil || gv.Group != c.fm.gvk.Group {
		return nil, missingVersionError{version}
	}
	u, ok := obj.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, missingVersionError{version}
	}
	out, err := c.fm.opts.Convert(u, gv)
	if err != nil {
		return nil, missingVersionError{version}
	}
	pt, err := parserFor(c.fm.s, gv.WithKind(c.fm.gvk.Kind))
	if err != nil {
		return nil, missingVersionError{version}
	}
	return toTyped(pt, out, typed.AllowDuplicates)
}

// IsMissingVersionError reports the error Convert returns for an unknown version.
func (c *converter) IsMissingVersionError(err error) bool {
	var mv missingVersionError
	return errors.As(err, &mv)
}

func uidOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	uid, _ := md["uid"].(string)
	return uid
}

// isReset reports managedFields a client set to [] or [{}] to clear them.
func isReset(entries []scheme.ManagedFieldsEntry) bool {
	switch len(entries) {
	case 0:
		return entries != nil
	case 1:
		e := entries[0]
		return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil &&
			e.FieldsType == "" && e.FieldsV1 == nil && e.Subresource == ""
	}
	return false
}
