package memory

import (
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func TestUnchanged_ComparesWholeObjectsIgnoringResourceVersion(t *testing.T) {
	base := func() *storagetest.Widget {
		w := storagetest.NewWidget("ns", "a", map[string]string{"app": "x"}, 3)
		w.SetResourceVersion("7")
		w.SetGeneration(2)
		return w
	}
	gadget := func() *scheme.Unstructured {
		g := storagetest.NewGadget("ns", "g", map[string]string{"app": "x"}, 3)
		g.SetResourceVersion("7")
		g.SetGeneration(2)
		return g
	}
	tests := []struct {
		name string
		cur  scheme.Object
		next func() scheme.Object
		want bool
	}{
		{"an identical copy is unchanged", base(), func() scheme.Object { return base() }, true},
		{"another resourceVersion alone is unchanged", base(),
			func() scheme.Object { w := base(); w.SetResourceVersion(""); return w }, true},
		{"another generation is a change", base(),
			func() scheme.Object { w := base(); w.SetGeneration(3); return w }, false},
		{"another spec at the same generation is a change", base(),
			func() scheme.Object { w := base(); w.Spec.Size = 4; return w }, false},
		{"another label at the same generation is a change", base(),
			func() scheme.Object { w := base(); w.SetLabels(map[string]string{"app": "y"}); return w }, false},
		{"an identical unstructured copy is unchanged", gadget(), func() scheme.Object { return gadget() }, true},
		{"an unstructured object at another generation is a change", gadget(),
			func() scheme.Object { g := gadget(); g.SetGeneration(5); return g }, false},
		{"an unstructured object with another label is a change", gadget(),
			func() scheme.Object { g := gadget(); g.SetLabels(map[string]string{"app": "y"}); return g }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := tt.next()
			if got := unchanged(tt.cur, next); got != tt.want {
				t.Errorf("unchanged = %v, want %v", got, tt.want)
			}
			if next.GetResourceVersion() != tt.cur.GetResourceVersion() {
				t.Errorf("next resourceVersion = %q, want cur's %q", next.GetResourceVersion(), tt.cur.GetResourceVersion())
			}
		})
	}
}

func TestStore_IndexAgreesWithTreeAcrossDeleteAndRecreate(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	steps := []struct {
		name string
		do   func() error
		want []string // names of the live objects, in key order
	}{
		{"create a and b", func() error {
			for _, n := range []string{"a", "b"} {
				if _, err := s.Create(ctx, key(n), storagetest.NewWidget("ns", n, nil, 1)); err != nil {
					return err
				}
			}
			return nil
		}, []string{"a", "b"}},
		{"update a", func() error {
			_, err := s.GuaranteedUpdate(ctx, key("a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetGeneration(cur.GetGeneration() + 1)
				return cur, nil
			})
			return err
		}, []string{"a", "b"}},
		{"delete a", func() error { _, err := s.Delete(ctx, key("a"), storage.DeleteOptions{}); return err }, []string{"b"}},
		{"create a again", func() error {
			_, err := s.Create(ctx, key("a"), storagetest.NewWidget("ns", "a", nil, 2))
			return err
		}, []string{"a", "b"}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		s.mu.RLock()
		var inTree []string
		s.live.ascendFrom("", func(e *entry) bool {
			if s.index[e.key] != e {
				t.Errorf("%s: index entry of %s is not the tree's", st.name, e.key)
			}
			inTree = append(inTree, e.obj.GetName())
			return true
		})
		n := len(s.index)
		s.mu.RUnlock()
		if len(inTree) != len(st.want) || n != len(st.want) {
			t.Fatalf("%s: tree holds %v and index %d entries, want %v", st.name, inTree, n, st.want)
		}
		for i := range st.want {
			if inTree[i] != st.want[i] {
				t.Errorf("%s: tree holds %v, want %v", st.name, inTree, st.want)
			}
		}
	}
}
