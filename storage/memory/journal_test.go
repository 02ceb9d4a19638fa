package memory

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// failingJournal makes writes durable at once until fail is set, and then fails them
// with an error that names a file, as a journal on a full disk does.
type failingJournal struct{ fail atomic.Bool }

// errDiskFull is the journal's failure; its text names a file that no client may read.
var errDiskFull = errors.New("write /var/lib/widgets/widgets.db.wal/00000001.seg: no space left on device")

func (j *failingJournal) Encode(_ string, obj scheme.Object) ([]byte, error) { return []byte("x"), nil }

func (j *failingJournal) Append(string, []byte, uint64) (Durability, error) {
	d := &doneDurability{done: make(chan struct{})}
	if j.fail.Load() {
		d.err = errDiskFull
	}
	close(d.done)
	return d, nil
}

// doneDurability is a Durability that has completed.
type doneDurability struct {
	done chan struct{}
	err  error
}

func (d *doneDurability) Done() <-chan struct{} { return d.done }
func (d *doneDurability) Err() error            { return d.err }

func TestJournalFailure_RefusesEveryLaterWriteWithUnavailableAndKeepsServingReads(t *testing.T) {
	ctx := context.Background()
	j := &failingJournal{}
	s := New(Options{Journal: j})
	t.Cleanup(s.Close)
	key := func(name string) string { return storage.Key(storagetest.Widgets, "ns", name) }
	if _, err := s.Create(ctx, key("kept"), storagetest.NewWidget("ns", "kept", nil, 1)); err != nil {
		t.Fatal(err)
	}
	j.fail.Store(true)
	_, failed := s.Create(ctx, key("failed"), storagetest.NewWidget("ns", "failed", nil, 1))
	j.fail.Store(false) // the journal works again: the store still takes no writes
	_, created := s.Create(ctx, key("later"), storagetest.NewWidget("ns", "later", nil, 1))
	_, updated := s.GuaranteedUpdate(ctx, key("kept"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		cur.(*storagetest.Widget).Spec.Size = 2
		return cur, nil
	})
	_, deleted := s.Delete(ctx, key("kept"), storage.DeleteOptions{})
	for _, tc := range []struct {
		name string
		err  error
		key  string
	}{
		{"the write that failed", failed, key("failed")},
		{"a create after it", created, key("later")},
		{"an update after it", updated, key("kept")},
		{"a delete after it", deleted, key("kept")},
	} {
		var se *storage.Error
		if !errors.As(tc.err, &se) || se.Err != storage.ErrUnavailable || se.Key != tc.key {
			t.Errorf("%s: error = %#v, want a *storage.Error of ErrUnavailable about %s", tc.name, tc.err, tc.key)
			continue
		}
		if se.Detail == "" || strings.Contains(se.Detail, "/") || errors.Is(tc.err, errDiskFull) {
			t.Errorf("%s: detail %q: want words for a client, without the journal's error", tc.name, se.Detail)
		}
	}
	res, err := s.List(ctx, storage.Prefix(storagetest.Widgets, "ns"), storage.ListOptions{})
	if err != nil || len(res.Items) != 1 || res.Items[0].GetName() != "kept" || res.Items[0].(*storagetest.Widget).Spec.Size != 1 {
		t.Errorf("list after the failure = %v, %v; want only kept, unchanged", res, err)
	}
}
