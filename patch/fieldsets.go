package patch

import (
	"bytes"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// maxDecodedSetBytes bounds the fieldsV1 bytes a decodedSets cache holds.
const maxDecodedSetBytes = 1 << 20

// decodedSets caches the field sets of fieldsV1 documents and, for the sets whose
// document is what ToJSON writes, the document. Every write decodes each manager's
// entry of the live object and encodes each again, while most managers' fields did not
// change since the previous write of the object. Sets handed out are shared and must
// not be modified; structured-merge-diff's set operations return new sets. Bounded by
// maxDecodedSetBytes: when full it starts over. The zero value is ready; a nil
// *decodedSets caches nothing.
type decodedSets struct {
	mu    sync.Mutex
	sets  map[string]*fieldpath.Set
	docs  map[*fieldpath.Set][]byte
	bytes int
}

// decode returns the field set of the fieldsV1 document raw.
func (c *decodedSets) decode(raw []byte) (*fieldpath.Set, error) {
	if c != nil {
		c.mu.Lock()
		set, ok := c.sets[string(raw)]
		c.mu.Unlock()
		if ok {
			return set, nil
		}
	}
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	if c == nil || len(raw) > maxDecodedSetBytes {
		return set, nil
	}
	doc, err := set.ToJSON()
	canonical := err == nil && bytes.Equal(doc, raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(raw) > maxDecodedSetBytes || c.sets == nil {
		c.sets, c.docs, c.bytes = map[string]*fieldpath.Set{}, map[*fieldpath.Set][]byte{}, 0
	}
	c.sets[string(raw)] = set
	if canonical {
		c.docs[set] = doc
	}
	c.bytes += len(raw)
	return set, nil
}

// encode returns set.ToJSON(), from the cache when set came from decode.
func (c *decodedSets) encode(set *fieldpath.Set) ([]byte, error) {
	if c != nil {
		c.mu.Lock()
		doc, ok := c.docs[set]
		c.mu.Unlock()
		if ok {
			return bytes.Clone(doc), nil
		}
	}
	return set.ToJSON()
}
