package rest_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// statusOf returns the Status a response carries: the body, or the object of a watch's
// ERROR event.
func statusOf(t *testing.T, r response) map[string]any {
	t.Helper()
	m := r.json(t)
	if m["type"] == "ERROR" {
		obj, _ := m["object"].(map[string]any)
		return obj
	}
	return m
}

// detailOf returns the detail of a storage error, the text a client is shown.
func detailOf(t *testing.T, err error) string {
	t.Helper()
	var se *storage.Error
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want a *storage.Error", err, err)
	}
	return se.Detail
}

// Every kind of storage error reaches the client as kube's Status, with kube's message
// and never a storage key (which testServer.do asserts of every response).
func TestStorageErrors_BecomeStatusesWithoutStorageKeys(t *testing.T) {
	store := memory.New(memory.Options{FutureWait: 10 * time.Millisecond})
	t.Cleanup(store.Close)
	s := newServer(t, func(o *rest.Options) { o.Storage = store })
	created := s.create("a", "blue")
	old := get(created, "metadata", "resourceVersion").(string)
	s.create("b", "blue")
	page := s.do("GET", widgetsPath+"?limit=1", "", "").json(t)
	token := get(page, "metadata", "continue").(string)
	updated := s.do("PUT", widgetsPath+"/a", "application/json", widgetJSON("a", "green", `"resourceVersion":"`+old+`"`))
	if updated.code != 200 {
		t.Fatalf("update: %d %s", updated.code, updated.body)
	}
	cur := get(updated.json(t), "metadata", "resourceVersion").(string)
	curRV, err := storage.ParseResourceVersion(cur)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Compact(t.Context(), curRV); err != nil {
		t.Fatal(err)
	}
	// A continue token of the older shape, whose start is an absolute key: one of another
	// collection is refused.
	otherCollection := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"v":"apikit.storage/v1","rv":%d,"start":"/toys.example.com/warehouses/x"}`, curRV)))
	_, labelErr := storage.ParseLabelSelector("=a")
	_, fieldErr := storage.ParseFieldSelector("a")

	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		reason, message          string
	}{
		{"a missing object is 404 NotFound", "GET", widgetsPath + "/nope", "",
			404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"creating an existing name is 409 AlreadyExists", "POST", widgetsPath, widgetJSON("a", "blue"),
			409, "AlreadyExists", `widgets.toys.example.com "a" already exists`},
		{"an update at a stale resourceVersion is 409 Conflict", "PUT", widgetsPath + "/a", widgetJSON("a", "red", `"resourceVersion":"`+old+`"`),
			409, "Conflict", `Operation cannot be fulfilled on widgets.toys.example.com "a": the object has been modified; please apply your changes to the latest version and try again`},
		{"an exact list at a compacted resourceVersion is 410 Expired", "GET", widgetsPath + "?resourceVersionMatch=Exact&resourceVersion=" + old, "",
			410, "Expired", fmt.Sprintf("resourceVersion %s is older than the oldest kept, %s", old, cur)},
		{"a continue token past compaction is 410 Expired", "GET", widgetsPath + "?limit=1&continue=" + url.QueryEscape(token), "",
			410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."},
		{"a watch from a compacted resourceVersion ends with a 410 Expired event", "GET", widgetsPath + "?watch=1&resourceVersion=" + old, "",
			410, "Expired", fmt.Sprintf("too old resource version: %s (%s)", old, cur)},
		{"a read at a future resourceVersion is 504 Timeout", "GET", widgetsPath + "/a?resourceVersion=999999", "",
			504, "Timeout", "Timeout: Too large resource version: 999999, current: " + cur},
		{"a malformed continue token is 400 BadRequest", "GET", widgetsPath + "?limit=1&continue=" + url.QueryEscape("%%%"), "",
			400, "BadRequest", "continue key is not valid: illegal base64 data at input byte 0"},
		{"a continue token of another collection is 400 BadRequest", "GET", widgetsPath + "?limit=1&continue=" + otherCollection, "",
			400, "BadRequest", "continue key is not valid: continue token is for another collection"},
		{"a label selector that does not parse is 400 BadRequest", "GET", widgetsPath + "?labelSelector=" + url.QueryEscape("=a"), "",
			400, "BadRequest", detailOf(t, labelErr)},
		{"a field selector that does not parse is 400 BadRequest", "GET", widgetsPath + "?fieldSelector=a", "",
			400, "BadRequest", detailOf(t, fieldErr)},
		{"a continue token with a resourceVersion is 400 BadRequest", "GET", widgetsPath + "?limit=1&resourceVersion=" + cur + "&continue=" + url.QueryEscape(token), "",
			400, "BadRequest", "specifying resource version is not allowed when using continue"},
		{"a negative limit is 400 BadRequest", "GET", widgetsPath + "?limit=-1", "",
			400, "BadRequest", "limit must not be negative, got -1"},
		{"a resourceVersion that is not a number is 400 BadRequest", "GET", widgetsPath + "/a?resourceVersion=abc", "",
			400, "BadRequest", `"abc" is not a valid resourceVersion`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(tc.method, tc.path, "application/json", tc.body)
			st := statusOf(t, r)
			if code, _ := st["code"].(float64); int(code) != tc.code || st["reason"] != tc.reason || st["message"] != tc.message {
				t.Errorf("Status %v %v %q, want %d %s %q", st["code"], st["reason"], st["message"], tc.code, tc.reason, tc.message)
			}
		})
	}
}

// errDiskFailed is a failure of the backend no storage sentinel names.
var errDiskFailed = errors.New("disk failed")

// failingStore fails every Get as a backend whose disk failed would: with a
// *storage.Error that names the key.
type failingStore struct{ *memory.Store }

func (failingStore) Get(_ context.Context, key string, _ storage.GetOptions) (scheme.Object, error) {
	return nil, storage.WithKey(errDiskFailed, key)
}

func TestStorageErrors_WithoutASentinelAre500InternalErrorWithoutTheKey(t *testing.T) {
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	s := newServer(t, func(o *rest.Options) { o.Storage = failingStore{store} })
	st := s.do("GET", widgetsPath+"/a", "", "").json(t)
	if code, _ := st["code"].(float64); code != 500 || st["reason"] != "InternalError" || st["message"] != "Internal error occurred: storage failed" {
		t.Errorf("Status %v %v %q, want 500 InternalError %q", st["code"], st["reason"], st["message"], "Internal error occurred: storage failed")
	}
}

// bareSentinelStore wraps sentinels without a *storage.Error, as a backend outside this
// module may, and names the key in the text.
type bareSentinelStore struct{ *memory.Store }

func (bareSentinelStore) Get(_ context.Context, key string, _ storage.GetOptions) (scheme.Object, error) {
	return nil, fmt.Errorf("%w: %s", storage.ErrNotFound, key)
}

func TestStorageErrors_BareSentinelsMapToTheirStatusWithoutTheKey(t *testing.T) {
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	s := newServer(t, func(o *rest.Options) { o.Storage = bareSentinelStore{store} })
	st := s.do("GET", widgetsPath+"/a", "", "").json(t)
	if code, _ := st["code"].(float64); code != 404 || st["reason"] != "NotFound" || st["message"] != `widgets.toys.example.com "a" not found` {
		t.Errorf("Status %v %v %q, want 404 NotFound", st["code"], st["reason"], st["message"])
	}
}

// unavailableStore fails every Get as a backend that cannot reach its cluster does.
type unavailableStore struct{ *memory.Store }

func (unavailableStore) Get(_ context.Context, key string, _ storage.GetOptions) (scheme.Object, error) {
	return nil, storage.NewErrorf(storage.ErrUnavailable, key, "storage is unavailable, please try again")
}

func TestStorageErrors_UnavailableIs503ServiceUnavailableWithoutTheKey(t *testing.T) {
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	s := newServer(t, func(o *rest.Options) { o.Storage = unavailableStore{store} })
	r := s.do("GET", widgetsPath+"/a", "", "")
	st := r.json(t)
	if code, _ := st["code"].(float64); r.code != 503 || code != 503 || st["reason"] != "ServiceUnavailable" || st["message"] != "storage is unavailable, please try again" {
		t.Errorf("HTTP %d, Status %v %v %q, want 503 ServiceUnavailable", r.code, st["code"], st["reason"], st["message"])
	}
}
