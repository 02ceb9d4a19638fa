package patch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/patch"
)

const doc = `{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"color":"red","parts":[{"name":"wheel","count":4}]}}`

// jsonEq fails the test unless got and want are the same JSON value.
func jsonEq(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("result is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("result differs (-want +got):\n%s", d)
	}
}

func TestJSONPatch(t *testing.T) {
	tests := []struct {
		name    string
		patch   string
		want    string
		wantErr error
	}{
		{"replace changes a field", `[{"op":"replace","path":"/spec/color","value":"blue"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"color":"blue","parts":[{"name":"wheel","count":4}]}}`, nil},
		{"add appends to a list with -", `[{"op":"add","path":"/spec/parts/-","value":{"name":"bolt"}}]`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"bolt"}]}}`, nil},
		{"remove deletes a key", `[{"op":"remove","path":"/metadata/labels/a"}]`,
			`{"metadata":{"name":"w","labels":{}},"spec":{"color":"red","parts":[{"name":"wheel","count":4}]}}`, nil},
		{"a passing test lets later ops apply", `[{"op":"test","path":"/spec/color","value":"red"},{"op":"copy","from":"/spec/color","path":"/metadata/labels/c"}]`,
			`{"metadata":{"name":"w","labels":{"a":"1","c":"red"}},"spec":{"color":"red","parts":[{"name":"wheel","count":4}]}}`, nil},
		{"a failing test rejects the whole patch", `[{"op":"replace","path":"/spec/color","value":"blue"},{"op":"test","path":"/spec/color","value":"red"}]`, "", patch.ErrRejected},
		{"removing a missing path is rejected", `[{"op":"remove","path":"/spec/size"}]`, "", patch.ErrRejected},
		{"an unknown op is malformed", `[{"op":"frobnicate","path":"/spec"}]`, "", patch.ErrMalformed},
		{"a body that is not an array is malformed", `{"op":"remove"}`, "", patch.ErrMalformed},
		{"invalid JSON is malformed", `[{"op":`, "", patch.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(doc)
			got, err := patch.JSONPatch(in, []byte(tt.patch))
			if string(in) != doc {
				t.Fatalf("the input document was modified: %s", in)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			jsonEq(t, got, tt.want)
		})
	}
}

func TestMergePatch(t *testing.T) {
	tests := []struct {
		name    string
		patch   string
		want    string
		wantErr error
	}{
		{"objects merge key by key", `{"metadata":{"labels":{"b":"2"}}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"}},"spec":{"color":"red","parts":[{"name":"wheel","count":4}]}}`, nil},
		{"null removes a key", `{"metadata":{"labels":{"a":null}}}`,
			`{"metadata":{"name":"w","labels":{}},"spec":{"color":"red","parts":[{"name":"wheel","count":4}]}}`, nil},
		{"lists are replaced, not merged", `{"spec":{"parts":[{"name":"bolt"}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"color":"red","parts":[{"name":"bolt"}]}}`, nil},
		{"invalid JSON is malformed", `{"spec":`, "", patch.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patch.MergePatch([]byte(doc), []byte(tt.patch))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			jsonEq(t, got, tt.want)
		})
	}
}

// copyBomb is a JSON patch of n copy operations each of which copies the whole of /d
// into itself, doubling the document: 1 KiB grows to 8 MiB in 13 operations (and
// past 1 GiB in 20, the bomb of issue 14).
func copyBomb(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/d","path":"/d/k%d"}`, i)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

func TestJSONPatch_LimitsAsKube(t *testing.T) {
	bombDoc := `{"d":{"s":"` + strings.Repeat("x", 1024) + `"}}`
	tooMany := "[" + strings.Repeat(`{"op":"test","path":"/d/s","value":"x"},`, patch.MaxJSONPatchOperations) + `{"op":"remove","path":"/d"}]`
	tests := []struct {
		name        string
		doc, patch  string
		wantErr     error
		wantMessage string
	}{
		{"more than 10,000 operations are too large", bombDoc, tooMany, patch.ErrTooLarge,
			"The allowed maximum operations in a JSON patch is 10000, got 10001"},
		{"copies growing the document past 3 MiB are rejected", bombDoc, copyBomb(13), patch.ErrRejected,
			"Unable to complete the copy, the accumulated size increase of copy is "},
		{"copies within 3 MiB apply", bombDoc, copyBomb(5), nil, ""},
		{"exactly 10,000 operations apply", `{"d":{"s":"x"}}`,
			"[" + strings.Repeat(`{"op":"test","path":"/d/s","value":"x"},`, patch.MaxJSONPatchOperations-1) + `{"op":"remove","path":"/d/s"}]`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := patch.JSONPatch([]byte(tt.doc), []byte(tt.patch))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), tt.wantMessage) {
				t.Errorf("message = %q, want prefix %q", err.Error(), tt.wantMessage)
			}
		})
	}
}
