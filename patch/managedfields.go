package patch

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apikit-dev/apikit/scheme"
)

// managed is the decoded metadata.managedFields of an object: each manager's field set
// (keyed by manager identifier) and the time of its last change. ids and sets, when
// set, cache the identifiers and the field sets.
type managed struct {
	fields fieldpath.ManagedFields
	times  map[string]*scheme.Time
	ids    *managerIDs
	sets   *decodedSets
	// raws are the fieldsV1 documents the fields were decoded from, by identifier.
	raws map[string][]byte
}

func newManaged(ids *managerIDs, sets *decodedSets) managed {
	return managed{fields: fieldpath.ManagedFields{}, times: map[string]*scheme.Time{}, ids: ids, sets: sets, raws: map[string][]byte{}}
}

// managerID is kube's manager identifier (BuildManagerIdentifier): the JSON of the
// entry without fields, fieldsType and time, and without apiVersion for appliers.
func managerID(e scheme.ManagedFieldsEntry) (string, error) {
	e = identifying(e)
	b, err := json.Marshal(&e)
	if err != nil {
		return "", fmt.Errorf("patch: manager identifier: %w", err)
	}
	return string(b), nil
}

// identifying is e with only the fields its manager identifier holds.
func identifying(e scheme.ManagedFieldsEntry) scheme.ManagedFieldsEntry {
	e.FieldsType, e.FieldsV1, e.Time = "", nil, nil
	if e.Operation == scheme.ManagedFieldsOperationApply {
		e.APIVersion = ""
	}
	return e
}

// maxCachedManagerIDs bounds a managerIDs cache: manager names come from clients, so
// beyond this many identifiers are computed each time instead of kept.
const maxCachedManagerIDs = 512

// managerIDs caches manager identifiers both ways. Building one is a JSON encoding and
// reading one back a JSON decoding, done for every entry of every write, while a kind
// sees few distinct managers. The zero value is ready; a nil *managerIDs caches nothing.
type managerIDs struct {
	byEntry sync.Map // identifying scheme.ManagedFieldsEntry -> string
	byID    sync.Map // string -> identifying scheme.ManagedFieldsEntry
	n       atomic.Int32
}

// id returns managerID(e).
func (c *managerIDs) id(e scheme.ManagedFieldsEntry) (string, error) {
	e = identifying(e)
	if c == nil {
		return managerID(e)
	}
	if v, ok := c.byEntry.Load(e); ok {
		return v.(string), nil
	}
	id, err := managerID(e)
	if err != nil {
		return "", err
	}
	// Only valid UTF-8 decodes back from the JSON unchanged.
	if c.n.Load() < maxCachedManagerIDs && validUTF8(e) {
		c.n.Add(1)
		c.byID.Store(id, e)
		c.byEntry.Store(e, id)
	}
	return id, nil
}

func validUTF8(e scheme.ManagedFieldsEntry) bool {
	return utf8.ValidString(e.Manager) && utf8.ValidString(string(e.Operation)) &&
		utf8.ValidString(e.APIVersion) && utf8.ValidString(e.Subresource)
}

// entry returns the entry that id identifies, as its JSON decodes.
func (c *managerIDs) entry(id string) (scheme.ManagedFieldsEntry, error) {
	if c != nil {
		if v, ok := c.byID.Load(id); ok {
			return v.(scheme.ManagedFieldsEntry), nil
		}
	}
	var e scheme.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(id), &e); err != nil {
		return e, fmt.Errorf("patch: manager identifier %s: %w", id, err)
	}
	return e, nil
}

// decodeManaged reads metadata.managedFields entries; an entry kube could not read
// (wrong fieldsType, bad fieldsV1, a duplicate manager) is an error.
func decodeManaged(entries []scheme.ManagedFieldsEntry, ids *managerIDs, sets *decodedSets) (managed, error) {
	m := newManaged(ids, sets)
	for i, e := range entries {
		if e.FieldsType != "FieldsV1" {
			return managed{}, fmt.Errorf("error decoding managed field entry %d: unsupported fieldsType %q", i, e.FieldsType)
		}
		id, err := ids.id(e)
		if err != nil {
			return managed{}, err
		}
		if _, dup := m.fields[id]; dup {
			return managed{}, fmt.Errorf("error decoding managed field entry %d: duplicate manager %s", i, id)
		}
		set := &fieldpath.Set{}
		if e.FieldsV1 != nil {
			if set, err = sets.decode(e.FieldsV1.Raw); err != nil {
				return managed{}, fmt.Errorf("error decoding managed field entry %d: %w", i, err)
			}
			m.raws[id] = e.FieldsV1.Raw
		}
		m.fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == scheme.ManagedFieldsOperationApply)
		if e.Time != nil {
			t := *e.Time
			m.times[id] = &t
		}
	}
	return m, nil
}

// encode writes the managed fields as metadata.managedFields entries, sorted as kube
// sorts them: by operation, time, manager, apiVersion and subresource.
func (m managed) encode() ([]scheme.ManagedFieldsEntry, error) {
	if len(m.fields) == 0 {
		return nil, nil
	}
	out := make([]scheme.ManagedFieldsEntry, 0, len(m.fields))
	for id, vs := range m.fields {
		e, err := m.ids.entry(id)
		if err != nil {
			return nil, err
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = scheme.ManagedFieldsOperationApply
		}
		raw, err := m.sets.encode(vs.Set())
		if err != nil {
			return nil, fmt.Errorf("patch: encoding fields of %s: %w", id, err)
		}
		e.FieldsType = "FieldsV1"
		e.FieldsV1 = &scheme.FieldsV1{Raw: raw}
		if t, ok := m.times[id]; ok {
			tc := *t
			e.Time = &tc
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		ps, qs := int64(0), int64(0)
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	return out, nil
}

// ManagedFieldsFromMap reads metadata.managedFields of an unstructured object: decoded
// JSON, or a []scheme.ManagedFieldsEntry a caller put there to spare the round trip.
func ManagedFieldsFromMap(obj map[string]any) ([]scheme.ManagedFieldsEntry, error) {
	md, _ := obj["metadata"].(map[string]any)
	raw, ok := md["managedFields"]
	if !ok || raw == nil {
		return nil, nil
	}
	if entries, ok := raw.([]scheme.ManagedFieldsEntry); ok {
		return entries, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := []scheme.ManagedFieldsEntry{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("metadata.managedFields: %w", err)
	}
	return out, nil
}

// MaxUpdateManagers is how many Update entries an object keeps; older ones merge into
// one "ancient-changes" entry per API version, as kube-apiserver's capManagersManager does.
const MaxUpdateManagers = 10

// ancientChanges is the manager of merged old Update entries.
const ancientChanges = "ancient-changes"

// capAndEncode merges the oldest Update entries beyond MaxUpdateManagers, drops the
// times of managers that no longer own anything, and encodes.
func (m managed) capAndEncode() ([]scheme.ManagedFieldsEntry, error) {
	if err := m.capUpdaters(MaxUpdateManagers); err != nil {
		return nil, err
	}
	for id := range m.times {
		if _, ok := m.fields[id]; !ok {
			delete(m.times, id)
		}
	}
	return m.encode()
}

func (m managed) unix(id string) int64 {
	if t := m.times[id]; t != nil {
		return t.Unix()
	}
	return 0
}

// capUpdaters folds the oldest updaters into per-version "ancient-changes" buckets until
// at most max remain.
func (m managed) capUpdaters(max int) error {
	var updaters []string
	for id, vs := range m.fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= max {
		return nil
	}
	sort.Slice(updaters, func(i, j int) bool {
		if a, b := m.unix(updaters[i]), m.unix(updaters[j]); a != b {
			return a < b
		}
		return updaters[i] < updaters[j]
	})
	firstOfVersion := map[string]string{}
	remaining := len(updaters)
	for _, id := range updaters {
		if remaining <= max {
			break
		}
		vs := m.fields[id]
		version := string(vs.APIVersion())
		bucket, err := m.ids.id(scheme.ManagedFieldsEntry{Manager: ancientChanges, Operation: scheme.ManagedFieldsOperationUpdate, APIVersion: version})
		if err != nil {
			return err
		}
		first, seen := firstOfVersion[version]
		if !seen {
			firstOfVersion[version] = id
			continue
		}
		if _, ok := m.fields[bucket]; !ok {
			m.fields[bucket] = m.fields[first]
			delete(m.fields, first)
		}
		m.fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.fields[bucket].Set()), vs.APIVersion(), false)
		delete(m.fields, id)
		m.times[bucket] = m.times[id]
		remaining--
	}
	return nil
}
