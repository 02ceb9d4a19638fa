package rest_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage/memory"
)

// loadNote pads the annotation of loadWidget as httpload pads its widgets (621 bytes).
var loadNote = strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 18)[:621]

// loadWidget is the body httpload (../shared/bench/httpload) creates and updates, so
// that the in-process write benchmarks measure what the HTTP rows of issue 16 do: four
// labels, a 621-byte annotation, a color, replicas and five parts, about 1 KB of JSON;
// rv is the resourceVersion an update carries ("" on create).
func loadWidget(i int, rv string, replicas int) string {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w-`)
	b.WriteString(strconv.Itoa(i))
	b.WriteString(`","namespace":"default"`)
	if rv != "" {
		b.WriteString(`,"resourceVersion":"` + rv + `"`)
	}
	b.WriteString(`,"labels":{"app":"httpload","shard":"` + strconv.Itoa(i%10) + `","tier":"backend","team":"team-` + strconv.Itoa(i%7) + `"}`)
	b.WriteString(`,"annotations":{"httpload.bench/note":"` + loadNote + `"}},"spec":{"color":"`)
	b.WriteString([...]string{"red", "green", "blue"}[i%3])
	b.WriteString(`","replicas":` + strconv.Itoa(replicas) + `,"parts":[`)
	for p := range 5 {
		if p > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"part-` + strconv.Itoa(p) + `","count":` + strconv.Itoa(p+1) + `}`)
	}
	b.WriteString("]}}")
	return b.String()
}

// BenchmarkWritePath serves httpload's create, get and update (a PUT with the
// resourceVersion of the last answer and a new spec.replicas, so never a no-op)
// in-process, without the network, so that instruction counts (e2e/cgbench.sh's
// method) show the handler's own cost of a write: decode, managedFields, conversion,
// validation, the memory store and the response. Updates cycle over 100 widgets.
func BenchmarkWritePath(b *testing.B) {
	newHandler := func(b *testing.B) http.Handler {
		store := memory.New(memory.Options{})
		b.Cleanup(store.Close)
		h, err := rest.New(rest.Options{Scheme: testapi.NewScheme(), Storage: store, AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	b.Run("op=create", func(b *testing.B) {
		h := newHandler(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			serveLoad(b, h, "POST", widgetsPath, loadWidget(i, "", 1), http.StatusCreated)
		}
	})
	b.Run("op=get", func(b *testing.B) {
		h := newHandler(b)
		serveLoad(b, h, "POST", widgetsPath, loadWidget(0, "", 1), http.StatusCreated)
		b.ReportAllocs()
		for b.Loop() {
			serveLoad(b, h, "GET", widgetsPath+"/w-0", "", http.StatusOK)
		}
	})
	b.Run("op=update", func(b *testing.B) {
		h := newHandler(b)
		const objects = 100
		rvs := make([]string, objects)
		for i := range rvs {
			rvs[i] = serveLoad(b, h, "POST", widgetsPath, loadWidget(i, "", 1), http.StatusCreated)
		}
		b.ReportAllocs()
		for n := 0; b.Loop(); n++ {
			i := n % objects
			rvs[i] = serveLoad(b, h, "PUT", widgetsPath+"/w-"+strconv.Itoa(i), loadWidget(i, rvs[i], n%1000), http.StatusOK)
		}
	})
}

// serveLoad serves one request as httpload sends it and returns the resourceVersion of
// the answer.
func serveLoad(b *testing.B, h http.Handler, method, path, body string, want int) string {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Go-http-client/1.1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	out := rec.Body.Bytes()
	_, rest, ok := bytes.Cut(out, []byte(`"resourceVersion":"`))
	rv, _, ok2 := bytes.Cut(rest, []byte(`"`))
	if !ok || !ok2 {
		b.Fatalf("%s %s: no resourceVersion in %s", method, path, out)
	}
	return string(rv)
}
