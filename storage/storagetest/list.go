package storagetest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

func mustLabels(t *testing.T, s string) storage.LabelSelector {
	t.Helper()
	sel, err := storage.ParseLabelSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func mustFields(t *testing.T, s string) storage.FieldSelector {
	t.Helper()
	sel, err := storage.ParseFieldSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// paginate lists prefix in pages of limit, checking that every page has the first page's
// resourceVersion, and returns all items.
func (e env) paginate(t *testing.T, prefix string, opts storage.ListOptions, between func(page int)) []scheme.Object {
	t.Helper()
	var all []scheme.Object
	listRV := ""
	for page := 0; page < 10000; page++ {
		res := e.list(t, prefix, opts)
		if listRV == "" {
			listRV = res.ResourceVersion
		} else if res.ResourceVersion != listRV {
			t.Fatalf("page %d at resourceVersion %s, first page at %s", page, res.ResourceVersion, listRV)
		}
		if opts.Limit > 0 && int64(len(res.Items)) > opts.Limit {
			t.Fatalf("page %d has %d items, limit %d", page, len(res.Items), opts.Limit)
		}
		all = append(all, res.Items...)
		if res.Continue == "" {
			return all
		}
		if between != nil {
			between(page)
		}
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = res.Continue, "", ""
	}
	t.Fatal("pagination did not end")
	return nil
}

var listBehaviours = []behaviour{
	{"List_ReturnsThePrefixInKeyOrder", func(t *testing.T, e env) {
		for _, n := range []string{"c", "a", "b"} {
			e.create(t, "ns1", n, nil, 1)
		}
		e.create(t, "ns10", "z", nil, 1)
		e.create(t, "ns0", "y", nil, 1)
		res := e.list(t, e.k.prefix("ns1"), storage.ListOptions{})
		if got, want := names(res.Items), []string{"ns1/a", "ns1/b", "ns1/c"}; !slices.Equal(got, want) {
			t.Errorf("items = %v, want %v", got, want)
		}
		if rvOf(t, res.ResourceVersion) != e.currentRV(t) {
			t.Errorf("list resourceVersion %s is not the current one", res.ResourceVersion)
		}
		if res.Continue != "" || res.RemainingItemCount != nil {
			t.Errorf("an unlimited list has continue %q, remaining %v", res.Continue, res.RemainingItemCount)
		}
		all := e.list(t, e.k.prefix(""), storage.ListOptions{})
		if got, want := names(all.Items), []string{"ns0/y", "ns1/a", "ns1/b", "ns1/c", "ns10/z"}; !slices.Equal(got, want) {
			t.Errorf("all namespaces = %v, want %v", got, want)
		}
	}},
	{"List_EmptyCollectionHasAResourceVersion", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		res := e.list(t, e.k.prefix("ns2"), storage.ListOptions{})
		if len(res.Items) != 0 {
			t.Errorf("items = %v", names(res.Items))
		}
		rvOf(t, res.ResourceVersion)
	}},
	{"List_InvalidParameterCombinationsFail", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		e.create(t, "ns1", "b", nil, 1)
		page := e.list(t, e.k.prefix("ns1"), storage.ListOptions{Limit: 1})
		if page.Continue == "" {
			t.Fatal("no continue token")
		}
		rv := page.ResourceVersion
		for _, tc := range []struct {
			name string
			opts storage.ListOptions
			want error
		}{
			{"match without resourceVersion", storage.ListOptions{ResourceVersionMatch: storage.ResourceVersionMatchNotOlderThan}, storage.ErrInvalidOptions},
			{"exact without resourceVersion", storage.ListOptions{ResourceVersionMatch: storage.ResourceVersionMatchExact}, storage.ErrInvalidOptions},
			{"exact at zero", storage.ListOptions{ResourceVersion: "0", ResourceVersionMatch: storage.ResourceVersionMatchExact}, storage.ErrInvalidOptions},
			{"unknown match", storage.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Newest"}, storage.ErrInvalidOptions},
			{"continue with a resourceVersion", storage.ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: rv}, storage.ErrInvalidOptions},
			{"continue with a match", storage.ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: "0", ResourceVersionMatch: storage.ResourceVersionMatchNotOlderThan}, storage.ErrInvalidOptions},
			{"non-numeric resourceVersion", storage.ListOptions{ResourceVersion: "x1"}, storage.ErrInvalidResourceVersion},
			{"malformed continue", storage.ListOptions{Limit: 1, Continue: "%%%"}, storage.ErrInvalidContinue},
			{"negative limit", storage.ListOptions{Limit: -1}, storage.ErrInvalidOptions},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.s.List(e.ctx, e.k.prefix("ns1"), tc.opts)
				wantError(t, err, tc.want, e.k.prefix("ns1"))
			})
		}
		// resourceVersion "0" with a continue token is treated as the token alone.
		res := e.list(t, e.k.prefix("ns1"), storage.ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: "0"})
		if got := names(res.Items); !slices.Equal(got, []string{"ns1/b"}) {
			t.Errorf("continue with resourceVersion 0 = %v, want [ns1/b]", got)
		}
	}},
	{"List_ExactReadsReturnTheStateAtThatVersion", func(t *testing.T, e env) {
		if !e.caps.ExactReads {
			t.Skip("backend does not serve exact reads")
		}
		e.create(t, "ns1", "a", nil, 1)
		v1 := e.currentRV(t)
		e.setSize(t, "ns1", "a", 2)
		e.create(t, "ns1", "b", nil, 1)
		if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []storage.ListOptions{
			{ResourceVersion: storage.FormatResourceVersion(v1), ResourceVersionMatch: storage.ResourceVersionMatchExact},
			{ResourceVersion: storage.FormatResourceVersion(v1), Limit: 10}, // limit with a version and no match means Exact
		} {
			res := e.list(t, e.k.prefix("ns1"), opts)
			if got := names(res.Items); !slices.Equal(got, []string{"ns1/a"}) || e.k.size(res.Items[0]) != 1 {
				t.Errorf("%+v: items %v, want ns1/a at size 1", opts, got)
			}
			if res.ResourceVersion != storage.FormatResourceVersion(v1) {
				t.Errorf("%+v: list resourceVersion %s, want %d", opts, res.ResourceVersion, v1)
			}
		}
	}},
	{"List_NotOlderThanAndAnyReturnTheCurrentState", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		v1 := e.currentRV(t)
		e.create(t, "ns1", "b", nil, 1)
		for _, opts := range []storage.ListOptions{
			{ResourceVersion: storage.FormatResourceVersion(v1)},
			{ResourceVersion: storage.FormatResourceVersion(v1), ResourceVersionMatch: storage.ResourceVersionMatchNotOlderThan},
			{ResourceVersion: "0"},
			{ResourceVersion: "0", ResourceVersionMatch: storage.ResourceVersionMatchNotOlderThan},
		} {
			res := e.list(t, e.k.prefix("ns1"), opts)
			if rvOf(t, res.ResourceVersion) < v1 {
				t.Errorf("%+v: list at %s, older than %d", opts, res.ResourceVersion, v1)
			}
			if got := names(res.Items); !slices.Equal(got, []string{"ns1/a", "ns1/b"}) {
				t.Errorf("%+v: items %v", opts, got)
			}
		}
	}},
	{"List_TooLargeResourceVersionFails", func(t *testing.T, e env) {
		if !e.caps.TooLargeResourceVersion {
			t.Skip("backend does not report too large resource versions")
		}
		e.create(t, "ns1", "a", nil, 1)
		future := e.currentRV(t) + 1000
		for _, m := range []storage.ResourceVersionMatch{"", storage.ResourceVersionMatchNotOlderThan, storage.ResourceVersionMatchExact} {
			_, err := e.s.List(e.ctx, e.k.prefix("ns1"), storage.ListOptions{ResourceVersion: storage.FormatResourceVersion(future), ResourceVersionMatch: m})
			wantErrorAt(t, err, storage.ErrTooLargeResourceVersion, e.k.prefix("ns1"), future)
		}
	}},
	{"List_PaginatesWithContinueTokensAndRemainingCount", func(t *testing.T, e env) {
		for i := range 10 {
			e.create(t, "ns1", fmt.Sprintf("o%02d", i), nil, int64(i))
		}
		e.create(t, "ns2", "other", nil, 1)
		var remaining []int64
		opts := storage.ListOptions{Limit: 3}
		var got []string
		for range 10 {
			res := e.list(t, e.k.prefix("ns1"), opts)
			got = append(got, names(res.Items)...)
			if res.Continue == "" {
				if res.RemainingItemCount != nil {
					t.Errorf("last page has remainingItemCount %d", *res.RemainingItemCount)
				}
				break
			}
			if res.RemainingItemCount == nil {
				t.Fatal("a page cut short without a selector has no remainingItemCount")
			}
			remaining = append(remaining, *res.RemainingItemCount)
			opts.Continue = res.Continue
		}
		want := make([]string, 10)
		for i := range want {
			want[i] = fmt.Sprintf("ns1/o%02d", i)
		}
		if !slices.Equal(got, want) {
			t.Errorf("pages = %v, want %v", got, want)
		}
		if !slices.Equal(remaining, []int64{7, 4, 1}) {
			t.Errorf("remainingItemCount = %v, want [7 4 1]", remaining)
		}
	}},
	{"List_PagesAreAConsistentSnapshotUnderConcurrentWrites", func(t *testing.T, e env) {
		if !e.caps.ExactReads {
			t.Skip("backend does not serve exact reads")
		}
		want := map[string]int64{}
		for i := range 40 {
			e.create(t, "ns1", fmt.Sprintf("o%02d", i), nil, int64(i))
			want[fmt.Sprintf("ns1/o%02d", i)] = int64(i)
		}
		var wg sync.WaitGroup
		started := false
		stop := make(chan struct{})
		writer := func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch i % 4 {
				case 0:
					_, err = e.s.Create(e.ctx, e.k.key("ns1", fmt.Sprintf("new%03d", i)), e.k.new("ns1", fmt.Sprintf("new%03d", i), nil, 1))
				case 1:
					_, err = e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", fmt.Sprintf("o%02d", (i*7)%40)), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
						e.k.setSize(cur, 1000+int64(i))
						return cur, nil
					})
				case 2:
					_, err = e.s.Delete(e.ctx, e.k.key("ns1", fmt.Sprintf("o%02d", (i*13)%40)), storage.DeleteOptions{})
				default: // sorts before every page but the first
					_, err = e.s.Create(e.ctx, e.k.key("ns1", fmt.Sprintf("a%03d", i)), e.k.new("ns1", fmt.Sprintf("a%03d", i), nil, 1))
				}
				if err != nil && !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("concurrent write %d: %v", i, err)
					return
				}
			}
		}
		items := e.paginate(t, e.k.prefix("ns1"), storage.ListOptions{Limit: 6}, func(int) {
			if !started {
				started = true
				wg.Add(1)
				go writer()
			}
		})
		close(stop)
		wg.Wait()
		got := map[string]int64{}
		for _, it := range items {
			got[it.GetNamespace()+"/"+it.GetName()] = e.k.size(it)
		}
		if !maps.Equal(got, want) {
			t.Errorf("pages under concurrent writes differ from the first page's snapshot:\n got %v\nwant %v", got, want)
		}
	}},
	{"List_ContinueTokenExpiresWith410", func(t *testing.T, e env) {
		c, ok := e.s.(storage.Compactor)
		if !e.caps.Compaction || !ok {
			t.Skip("backend does not compact")
		}
		for i := range 4 {
			e.create(t, "ns1", fmt.Sprintf("o%d", i), nil, 1)
		}
		page := e.list(t, e.k.prefix("ns1"), storage.ListOptions{Limit: 2})
		e.setSize(t, "ns1", "o3", 2)
		if err := c.Compact(e.ctx, e.currentRV(t)); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.List(e.ctx, e.k.prefix("ns1"), storage.ListOptions{Limit: 2, Continue: page.Continue})
		wantErrorAt(t, err, storage.ErrGone, e.k.prefix("ns1"), rvOf(t, page.ResourceVersion))
	}},
	{"List_LabelSelectorsSelect", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", map[string]string{"env": "prod", "tier": "web"}, 1)
		e.create(t, "ns1", "b", map[string]string{"env": "dev", "tier": "web"}, 1)
		e.create(t, "ns1", "c", map[string]string{"env": "test"}, 1)
		e.create(t, "ns1", "d", nil, 1)
		for _, tc := range []struct {
			sel  string
			want []string
		}{
			{"env=prod", []string{"ns1/a"}},
			{"env==prod", []string{"ns1/a"}},
			{"env!=prod", []string{"ns1/b", "ns1/c", "ns1/d"}},
			{"env in (dev,test)", []string{"ns1/b", "ns1/c"}},
			{"env notin (dev,test)", []string{"ns1/a", "ns1/d"}},
			{"tier", []string{"ns1/a", "ns1/b"}},
			{"!tier", []string{"ns1/c", "ns1/d"}},
			{"tier=web,env!=dev", []string{"ns1/a"}},
			{"", []string{"ns1/a", "ns1/b", "ns1/c", "ns1/d"}},
		} {
			res := e.list(t, e.k.prefix("ns1"), storage.ListOptions{Predicate: storage.Predicate{Label: mustLabels(t, tc.sel)}})
			if got := names(res.Items); !slices.Equal(got, tc.want) {
				t.Errorf("%q selected %v, want %v", tc.sel, got, tc.want)
			}
		}
	}},
	{"List_FieldSelectorsSelect", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		e.create(t, "ns1", "b", nil, 2)
		e.create(t, "ns2", "a", nil, 2)
		sizeAttrs := func(obj scheme.Object) (map[string]string, map[string]string, error) {
			l, f, err := storage.DefaultAttrs(obj)
			f["spec.size"] = fmt.Sprint(e.k.size(obj))
			return l, f, err
		}
		for _, tc := range []struct {
			sel   string
			attrs storage.AttrFunc
			want  []string
		}{
			{"metadata.name=a", nil, []string{"ns1/a", "ns2/a"}},
			{"metadata.name!=a", nil, []string{"ns1/b"}},
			{"metadata.namespace==ns2", nil, []string{"ns2/a"}},
			{"metadata.name=a,metadata.namespace!=ns1", nil, []string{"ns2/a"}},
			{"spec.size=2", sizeAttrs, []string{"ns1/b", "ns2/a"}},
		} {
			res := e.list(t, e.k.prefix(""), storage.ListOptions{Predicate: storage.Predicate{Field: mustFields(t, tc.sel), GetAttrs: tc.attrs}})
			if got := names(res.Items); !slices.Equal(got, tc.want) {
				t.Errorf("%q selected %v, want %v", tc.sel, got, tc.want)
			}
		}
	}},
	{"List_SelectedPagesFillUpToTheLimitWithoutRemainingCount", func(t *testing.T, e env) {
		for i := range 12 {
			labels := map[string]string{"even": fmt.Sprint(i%2 == 0)}
			e.create(t, "ns1", fmt.Sprintf("o%02d", i), labels, 1)
		}
		sel := storage.Predicate{Label: mustLabels(t, "even=true")}
		opts := storage.ListOptions{Limit: 2, Predicate: sel}
		var got []string
		for range 20 {
			res := e.list(t, e.k.prefix("ns1"), opts)
			if res.RemainingItemCount != nil {
				t.Errorf("remainingItemCount %d set with a selector", *res.RemainingItemCount)
			}
			if res.Continue != "" && len(res.Items) != 2 {
				t.Errorf("a page with more to come has %d items, want the limit 2", len(res.Items))
			}
			got = append(got, names(res.Items)...)
			if res.Continue == "" {
				break
			}
			opts.Continue = res.Continue
		}
		want := []string{"ns1/o00", "ns1/o02", "ns1/o04", "ns1/o06", "ns1/o08", "ns1/o10"}
		if !slices.Equal(got, want) {
			t.Errorf("selected pages = %v, want %v", got, want)
		}
	}},
}
