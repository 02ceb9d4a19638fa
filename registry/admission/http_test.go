package admission_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
)

// response is what a test reads of an answer.
type response struct {
	code     int
	body     map[string]any
	warnings []string
}

// send makes one request with a JSON body and returns its answer.
func send(t testing.TB, srv *apitest.Server, method, path string, body any) response {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, srv.URL+path, in)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := response{code: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&r.body); err != nil {
		t.Fatal(err)
	}
	for _, w := range resp.Header.Values("Warning") {
		// kube's `299 - "text"`, the text's quotes and backslashes escaped.
		text := strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`)
		text = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text)
		r.warnings = append(r.warnings, text)
	}
	return r
}

// sendExpect is send of a request that must answer want; it returns the body.
func sendExpect(t testing.TB, srv *apitest.Server, method, path string, body any, want int) map[string]any {
	t.Helper()
	r := send(t, srv, method, path, body)
	if r.code != want {
		t.Fatalf("%s %s: %d, want %d: %v", method, path, r.code, want, r.body)
	}
	return r.body
}

// at is the value at path in a JSON object (nil where the path ends early).
func at(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}
