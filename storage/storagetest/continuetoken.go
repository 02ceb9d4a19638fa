package storagetest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/storage"
)

// forgeContinue is a continue token written by hand, as a client can: base64 (URL
// alphabet, unpadded) of the JSON kube-apiserver's tokens carry.
func forgeContinue(version string, rv uint64, start string) string {
	b, err := json.Marshal(map[string]any{"v": version, "rv": rv, "start": start})
	if err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// readContinue returns the fields of a continue token, failing unless it is base64 of a
// JSON object.
func readContinue(t *testing.T, token string) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("continue token %q is not unpadded URL base64: %v", token, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatalf("continue token %q is not a JSON object: %v", b, err)
	}
	return fields
}

var continueBehaviours = []behaviour{
	{"List_ContinueTokenCarriesOnlyTheKeyRelativeToThePrefix", func(t *testing.T, e env) {
		for _, name := range []string{"x1", "x2"} {
			e.create(t, "ns1", name, nil, 1)
		}
		for _, tc := range []struct {
			prefix, start string
		}{
			{e.k.prefix("ns1"), "x1\x00"},
			{e.k.prefix(""), "ns1/x1\x00"}, // every namespace: the namespace is below the prefix
		} {
			res := e.list(t, tc.prefix, storage.ListOptions{Limit: 1})
			fields := readContinue(t, res.Continue)
			want := map[string]any{"v": "meta.k8s.io/v1", "rv": float64(rvOf(t, res.ResourceVersion)), "start": tc.start}
			if len(fields) != len(want) || fields["v"] != want["v"] || fields["rv"] != want["rv"] || fields["start"] != want["start"] {
				t.Errorf("token of %s = %q, want kube-apiserver's %q: the start key relative to the listed prefix", tc.prefix, fields, want)
			}
		}
	}},
	{"List_ForgedContinueTokenCannotListOutsideThePrefix", func(t *testing.T, e env) {
		for _, obj := range []struct{ ns, name string }{{"a", "x1"}, {"a", "x2"}, {"b", "y1"}, {"b", "y2"}, {"b", "y3"}, {"c", "z1"}} {
			e.create(t, obj.ns, obj.name, nil, 1)
		}
		prefix := e.k.prefix("b")
		rv := e.currentRV(t)
		const relative, absolute = "meta.k8s.io/v1", "apikit.storage/v1"
		for _, tc := range []struct {
			name, version, start string
			want                 []string // nil: refused with ErrInvalidContinue
		}{
			{"a relative start continues inside the prefix", relative, "y1\x00", []string{"b/y2", "b/y3"}},
			{"a relative start between keys continues at the next one", relative, "y15", []string{"b/y2", "b/y3"}},
			{"a relative start past every key lists nothing", relative, "zzz", []string{}},
			{"a parent reference is refused", relative, "../a/x1\x00", nil},
			{"a rooted parent reference is refused", relative, "/../a/x1\x00", nil},
			{"a bare parent is refused", relative, "..", nil},
			{"a current-directory reference is refused", relative, "./y1", nil},
			{"a climb from inside is refused", relative, "y1/../../a/x1", nil},
			{"a doubled slash is refused", relative, "y1//x", nil},
			{"an empty start is refused", relative, "", nil},
			{"an absolute token of the old shape continues under the prefix", absolute, e.k.key("b", "y1"), []string{"b/y2", "b/y3"}},
			{"an absolute token of a namespace before the prefix is refused", absolute, e.k.key("a", "x1"), nil},
			{"an absolute token of a namespace after the prefix is refused", absolute, e.k.key("c", "z1"), nil},
			{"an absolute token of the resource's prefix is refused", absolute, e.k.prefix(""), nil},
			{"an absolute token of another resource is refused", absolute, "/other.example.com/things/b/y1", nil},
			{"an absolute token of the prefix itself is refused", absolute, prefix, nil},
			{"an absolute token climbing out of the prefix is refused", absolute, prefix + "../a/x1", nil},
			{"an unknown version is refused", "apikit.storage/v9", "y1\x00", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, err := e.s.List(e.ctx, prefix, storage.ListOptions{Limit: 10, Continue: forgeContinue(tc.version, rv, tc.start)})
				if err == nil {
					for _, it := range res.Items {
						if it.GetNamespace() != "b" {
							t.Fatalf("list of %s with a forged token returned %s/%s of another namespace", prefix, it.GetNamespace(), it.GetName())
						}
					}
				}
				if tc.want == nil {
					if !errors.Is(err, storage.ErrInvalidContinue) {
						t.Fatalf("List = %v, %v; want ErrInvalidContinue", res, err)
					}
					se := wantError(t, err, storage.ErrInvalidContinue, prefix)
					if tc.start != "" && strings.Contains(se.Detail, tc.start) {
						t.Errorf("detail %q echoes the token's key", se.Detail)
					}
					return
				}
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				if got := names(res.Items); !slices.Equal(got, tc.want) {
					t.Errorf("items = %v, want %v", got, tc.want)
				}
			})
		}
	}},
}
