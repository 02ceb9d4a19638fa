package builtin_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

const (
	coreEvents   = "/api/v1/namespaces/default/events"
	eventsEvents = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// eventsServer serves the built-in kinds, in memory, with the namespace default.
func eventsServer(t *testing.T) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	return srv
}

// call sends a JSON request and decodes the answer into a map, failing unless the
// status is want.
func call(t *testing.T, srv *apitest.Server, method, path string, body any, want int) map[string]any {
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
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %v", method, path, resp.StatusCode, want, out)
	}
	return out
}

// pick returns the named top-level fields of an object.
func pick(obj map[string]any, fields ...string) map[string]any {
	out := map[string]any{}
	for _, f := range fields {
		if v, ok := obj[f]; ok {
			out[f] = v
		}
	}
	return out
}

var regarding = map[string]any{"kind": "Pod", "namespace": "default", "name": "web", "uid": "u-1"}

func TestEvents_WrittenThroughEventsK8sIOReadThroughCoreWithFieldsMapped(t *testing.T) {
	srv := eventsServer(t)
	call(t, srv, http.MethodPost, eventsEvents, map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": map[string]any{"name": "e1"},
		"eventTime": "2024-01-02T03:04:05.000006Z", "reportingController": "ctrl", "reportingInstance": "ctrl-1",
		"action": "Pull", "reason": "Pulled", "type": "Normal", "note": "pulled the image", "regarding": regarding,
		"series":           map[string]any{"count": float64(2), "lastObservedTime": "2024-01-02T03:04:06.000000Z"},
		"deprecatedSource": map[string]any{"component": "kubelet"}, "deprecatedCount": float64(3),
		"deprecatedFirstTimestamp": "2024-01-01T00:00:00Z", "deprecatedLastTimestamp": "2024-01-02T00:00:00Z",
	}, http.StatusCreated)

	want := map[string]any{
		"apiVersion": "v1", "kind": "Event", "involvedObject": regarding, "message": "pulled the image",
		"reportingComponent": "ctrl", "reportingInstance": "ctrl-1", "action": "Pull", "reason": "Pulled", "type": "Normal",
		"eventTime": "2024-01-02T03:04:05.000006Z", "source": map[string]any{"component": "kubelet"}, "count": float64(3),
		"series":         map[string]any{"count": float64(2), "lastObservedTime": "2024-01-02T03:04:06.000000Z"},
		"firstTimestamp": "2024-01-01T00:00:00Z", "lastTimestamp": "2024-01-02T00:00:00Z",
	}
	fields := []string{"apiVersion", "kind", "involvedObject", "message", "reportingComponent", "reportingInstance", "action",
		"reason", "type", "eventTime", "source", "count", "series", "firstTimestamp", "lastTimestamp"}
	got := call(t, srv, http.MethodGet, coreEvents+"/e1", nil, http.StatusOK)
	if d := cmp.Diff(want, pick(got, fields...)); d != "" {
		t.Errorf("core GET (-want +got):\n%s", d)
	}
	list := call(t, srv, http.MethodGet, coreEvents, nil, http.StatusOK)
	items, _ := list["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("core list has %d items, want 1: %v", len(items), list)
	}
	if d := cmp.Diff(want, pick(items[0].(map[string]any), fields...)); d != "" {
		t.Errorf("core list item (-want +got):\n%s", d)
	}
}

func TestEvents_WrittenThroughCoreReadThroughEventsK8sIO(t *testing.T) {
	srv := eventsServer(t)
	call(t, srv, http.MethodPost, coreEvents, map[string]any{
		"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e1"}, "involvedObject": regarding,
		"reason": "Started", "message": "started", "type": "Warning", "source": map[string]any{"component": "kubelet", "host": "n1"},
		"count": float64(4), "reportingComponent": "kubelet", "reportingInstance": "n1",
	}, http.StatusCreated)
	got := call(t, srv, http.MethodGet, eventsEvents+"/e1", nil, http.StatusOK)
	want := map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event", "regarding": regarding, "note": "started", "reason": "Started",
		"type": "Warning", "deprecatedSource": map[string]any{"component": "kubelet", "host": "n1"}, "deprecatedCount": float64(4),
		"reportingController": "kubelet", "reportingInstance": "n1",
	}
	if d := cmp.Diff(want, pick(got, "apiVersion", "kind", "regarding", "note", "reason", "type", "deprecatedSource",
		"deprecatedCount", "reportingController", "reportingInstance", "involvedObject", "message")); d != "" {
		t.Errorf("events.k8s.io GET (-want +got):\n%s", d)
	}
}

func TestEvents_UpdatesThroughEitherGroupShowInTheOther(t *testing.T) {
	srv := eventsServer(t)
	created := call(t, srv, http.MethodPost, coreEvents, map[string]any{
		"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e1"}, "involvedObject": regarding, "message": "one",
	}, http.StatusCreated)

	ev := call(t, srv, http.MethodGet, eventsEvents+"/e1", nil, http.StatusOK)
	ev["note"] = "two"
	call(t, srv, http.MethodPut, eventsEvents+"/e1", ev, http.StatusOK)
	core := call(t, srv, http.MethodGet, coreEvents+"/e1", nil, http.StatusOK)
	if core["message"] != "two" {
		t.Errorf("core message after an events.k8s.io update = %v, want two", core["message"])
	}
	if uid := core["metadata"].(map[string]any)["uid"]; uid != created["metadata"].(map[string]any)["uid"] {
		t.Errorf("uid changed across groups: %v", uid)
	}

	core["message"] = "three"
	call(t, srv, http.MethodPut, coreEvents+"/e1", core, http.StatusOK)
	ev = call(t, srv, http.MethodGet, eventsEvents+"/e1", nil, http.StatusOK)
	if ev["note"] != "three" {
		t.Errorf("events.k8s.io note after a core update = %v, want three", ev["note"])
	}

	call(t, srv, http.MethodDelete, eventsEvents+"/e1", nil, http.StatusOK)
	call(t, srv, http.MethodGet, coreEvents+"/e1", nil, http.StatusNotFound)
}

func TestEvents_CoreWatchSeesAnEventCreatedThroughEventsK8sIO(t *testing.T) {
	srv := eventsServer(t)
	list := call(t, srv, http.MethodGet, coreEvents, nil, http.StatusOK)
	rv := list["metadata"].(map[string]any)["resourceVersion"].(string)
	resp, err := srv.Client().Get(srv.URL + coreEvents + "?watch=true&resourceVersion=" + rv)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	call(t, srv, http.MethodPost, eventsEvents, map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": map[string]any{"name": "e1"},
		"eventTime": "2024-01-02T03:04:05.000006Z", "reportingController": "ctrl", "reportingInstance": "ctrl-1",
		"action": "Pull", "reason": "Pulled", "type": "Normal", "note": "hello", "regarding": regarding,
	}, http.StatusCreated)
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type   string
		Object map[string]any
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"apiVersion": "v1", "kind": "Event", "message": "hello", "involvedObject": regarding}
	if ev.Type != "ADDED" || !cmp.Equal(want, pick(ev.Object, "apiVersion", "kind", "message", "involvedObject")) {
		t.Errorf("watch event = %s %v, want ADDED %v", ev.Type, ev.Object, want)
	}
}
