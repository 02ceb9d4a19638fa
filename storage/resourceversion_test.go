package storage

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func TestParseResourceVersion_RejectsNonNumbersWithAClearError(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		err  bool
	}{
		{"", 0, false}, {"0", 0, false}, {"42", 42, false}, {"18446744073709551615", 1<<64 - 1, false},
		{"abc", 0, true}, {"-1", 0, true}, {"1.5", 0, true}, {"18446744073709551616", 0, true},
	} {
		got, err := ParseResourceVersion(tc.in)
		if tc.err {
			if !errors.Is(err, ErrInvalidResourceVersion) || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("%q: error = %v, want ErrInvalidResourceVersion naming the input", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	if FormatResourceVersion(7) != "7" || FormatResourceVersion(0) != "" {
		t.Error("FormatResourceVersion")
	}
}

func TestResolveGet_FollowsTheSpecTable(t *testing.T) {
	for rv, want := range map[string]ReadSpec{
		"":   {Mode: ReadMostRecent},
		"0":  {Mode: ReadAny},
		"10": {Mode: ReadNotOlderThan, ResourceVersion: 10},
	} {
		got, err := ResolveGet(GetOptions{ResourceVersion: rv})
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", rv, got, err, want)
		}
	}
	if _, err := ResolveGet(GetOptions{ResourceVersion: "x"}); !errors.Is(err, ErrInvalidResourceVersion) {
		t.Errorf("error = %v", err)
	}
}

func TestResolveList_FollowsTheSpecTable(t *testing.T) {
	token, err := EncodeContinue(7, "/g/r/ns/", "/g/r/ns/b")
	if err != nil {
		t.Fatal(err)
	}
	const (
		exact = ResourceVersionMatchExact
		newer = ResourceVersionMatchNotOlderThan
	)
	for _, tc := range []struct {
		name string
		opts ListOptions
		want ReadSpec
		err  error
	}{
		{"unset, no limit: most recent", ListOptions{}, ReadSpec{Mode: ReadMostRecent}, nil},
		{"zero, no limit: any", ListOptions{ResourceVersion: "0"}, ReadSpec{Mode: ReadAny}, nil},
		{"N, no limit: not older than", ListOptions{ResourceVersion: "5"}, ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: 5}, nil},
		{"unset, limit: most recent", ListOptions{Limit: 1}, ReadSpec{Mode: ReadMostRecent}, nil},
		{"zero, limit: any", ListOptions{Limit: 1, ResourceVersion: "0"}, ReadSpec{Mode: ReadAny}, nil},
		{"N, limit: exact", ListOptions{Limit: 1, ResourceVersion: "5"}, ReadSpec{Mode: ReadExact, ResourceVersion: 5}, nil},
		{"unset, continue: token exact", ListOptions{Limit: 1, Continue: token}, ReadSpec{Mode: ReadExact, ResourceVersion: 7, From: "/g/r/ns/b\x00"}, nil},
		{"zero, continue: token exact", ListOptions{Limit: 1, Continue: token, ResourceVersion: "0"}, ReadSpec{Mode: ReadExact, ResourceVersion: 7, From: "/g/r/ns/b\x00"}, nil},
		{"N, continue: invalid", ListOptions{Limit: 1, Continue: token, ResourceVersion: "5"}, ReadSpec{}, ErrInvalidOptions},
		{"Exact, unset: invalid", ListOptions{ResourceVersionMatch: exact}, ReadSpec{}, ErrInvalidOptions},
		{"Exact, zero: invalid", ListOptions{ResourceVersionMatch: exact, ResourceVersion: "0"}, ReadSpec{}, ErrInvalidOptions},
		{"Exact, N: exact", ListOptions{ResourceVersionMatch: exact, ResourceVersion: "5"}, ReadSpec{Mode: ReadExact, ResourceVersion: 5}, nil},
		{"Exact, N, limit: exact", ListOptions{ResourceVersionMatch: exact, ResourceVersion: "5", Limit: 2}, ReadSpec{Mode: ReadExact, ResourceVersion: 5}, nil},
		{"NotOlderThan, unset: invalid", ListOptions{ResourceVersionMatch: newer}, ReadSpec{}, ErrInvalidOptions},
		{"NotOlderThan, zero: any", ListOptions{ResourceVersionMatch: newer, ResourceVersion: "0"}, ReadSpec{Mode: ReadAny}, nil},
		{"NotOlderThan, N: not older than", ListOptions{ResourceVersionMatch: newer, ResourceVersion: "5"}, ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: 5}, nil},
		{"NotOlderThan, N, limit: not older than", ListOptions{ResourceVersionMatch: newer, ResourceVersion: "5", Limit: 3}, ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: 5}, nil},
		{"match with continue: invalid", ListOptions{ResourceVersionMatch: newer, ResourceVersion: "0", Continue: token}, ReadSpec{}, ErrInvalidOptions},
		{"unknown match: invalid", ListOptions{ResourceVersionMatch: "Latest", ResourceVersion: "5"}, ReadSpec{}, ErrInvalidOptions},
		{"bad version", ListOptions{ResourceVersion: "v5"}, ReadSpec{}, ErrInvalidResourceVersion},
		{"bad token", ListOptions{Limit: 1, Continue: "!!"}, ReadSpec{}, ErrInvalidContinue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveList("/g/r/ns/", tc.opts)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// rawToken is a continue token of the given JSON, as a client may write one.
func rawToken(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

func TestContinueToken_CarriesTheKeyRelativeToThePrefixAsKubeDoes(t *testing.T) {
	const prefix = "/toys.example.com/widgets/bulk/"
	tok, err := EncodeContinue(6070, prefix, prefix+"w00001")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	// The token of kube-apiserver's etcd3 store for the same page, byte for byte.
	if want := `{"v":"meta.k8s.io/v1","rv":6070,"start":"w00001\u0000"}`; string(raw) != want {
		t.Errorf("token = %s, want %s", raw, want)
	}
	rv, from, err := DecodeContinue(tok, prefix)
	if err != nil || rv != 6070 || from != prefix+"w00001\x00" {
		t.Fatalf("DecodeContinue = %d, %q, %v; want 6070 and the key after w00001", rv, from, err)
	}
	if _, err := EncodeContinue(1, prefix, "/toys.example.com/widgets/other/w00001"); err == nil {
		t.Error("EncodeContinue of a key outside the prefix succeeded")
	}
}

func TestContinueToken_ReadsTheOldAbsoluteShapeOnlyUnderThePrefix(t *testing.T) {
	const prefix = "/g/r/ns/"
	rv, from, err := DecodeContinue(rawToken(`{"v":"apikit.storage/v1","rv":9,"start":"/g/r/ns/b"}`), prefix)
	if err != nil || rv != 9 || from != prefix+"b\x00" {
		t.Errorf("DecodeContinue(old token under the prefix) = %d, %q, %v; want 9 and the key after b", rv, from, err)
	}
	for _, start := range []string{"/g/r/other/b", "/g/r/", "/g/r/ns/", "/g/r/ns/../other/b", "/g/r/nsx/b"} {
		_, _, err := DecodeContinue(rawToken(`{"v":"apikit.storage/v1","rv":9,"start":"`+start+`"}`), prefix)
		if !errors.Is(err, ErrInvalidContinue) {
			t.Errorf("old token with start %q: error = %v, want ErrInvalidContinue", start, err)
		}
	}
}

func TestContinueToken_RejectsGarbageAndKeysThatLeaveThePrefix(t *testing.T) {
	for _, bad := range []string{
		"", "not base64!", "e30",
		rawToken(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":""}`),
		rawToken(`{"v":"meta.k8s.io/v2","rv":1,"start":"a"}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":"../other/a"}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":"a/../../x"}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":"./a"}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":".."}`),
		rawToken(`{"v":"meta.k8s.io/v1","rv":1,"start":"a//b"}`),
	} {
		if _, _, err := DecodeContinue(bad, "/g/r/ns/"); !errors.Is(err, ErrInvalidContinue) {
			t.Errorf("%q: error = %v, want ErrInvalidContinue", bad, err)
		}
	}
}

func TestKey_FollowsThePathConvention(t *testing.T) {
	deploy := scheme.GroupResource{Group: "apps", Resource: "deployments"}
	nodes := scheme.GroupResource{Resource: "nodes"}
	for got, want := range map[string]string{
		Key(deploy, "ns", "x"): "/apps/deployments/ns/x",
		Key(nodes, "", "n1"):   "/core/nodes/n1",
		Prefix(deploy, ""):     "/apps/deployments/",
		Prefix(deploy, "ns"):   "/apps/deployments/ns/",
		EnsurePrefix("/a/b"):   "/a/b/",
		EnsurePrefix("/a/b/"):  "/a/b/",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestErrors_WrapSentinelsWithTheKey(t *testing.T) {
	err := NewErrorf(ErrConflict, "/g/r/ns/x", "uid %s", "u1")
	if !errors.Is(err, ErrConflict) || err.Error() != "conflict: /g/r/ns/x: uid u1" {
		t.Errorf("got %v", err)
	}
	if err := NewError(ErrNotFound, "/k"); !errors.Is(err, ErrNotFound) || err.Error() != "not found: /k" {
		t.Errorf("got %v", err)
	}
}

func TestPredicate_UsesDefaultOrCustomAttributes(t *testing.T) {
	obj := &scheme.Unstructured{}
	obj.SetName("a")
	obj.SetNamespace("ns")
	obj.SetLabels(map[string]string{"app": "x"})
	lsel, _ := ParseLabelSelector("app=x")
	fsel, _ := ParseFieldSelector("metadata.namespace=ns,metadata.name=a")
	custom, _ := ParseFieldSelector("spec.color=red")
	for _, tc := range []struct {
		name string
		p    Predicate
		want bool
	}{
		{"zero predicate", Predicate{}, true},
		{"labels", Predicate{Label: lsel}, true},
		{"default fields", Predicate{Label: lsel, Field: fsel}, true},
		{"custom field absent", Predicate{Field: custom}, false},
		{"custom field given", Predicate{Field: custom, GetAttrs: func(o scheme.Object) (map[string]string, map[string]string, error) {
			return o.GetLabels(), map[string]string{"spec.color": "red"}, nil
		}}, true},
	} {
		got, err := tc.p.Matches(obj)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
