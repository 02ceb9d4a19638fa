package rest_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A media type that exists only in this file: if serving it needed anything besides
// this serializer and Options.Serializers, these tests could not pass.
const (
	linesType   = "application/vnd.apikit.lines"
	linesStream = "application/vnd.apikit.lines-events"
)

// linesSerializer writes an object as "LINES " and its JSON on one line, and a watch
// event as an "EVENT <type>" line followed by the object's line. It has an encoding
// only for v1 kinds and none for Table, to show negotiation asking it.
type linesSerializer struct{ json *codec.JSONSerializer }

var _ interface {
	codec.Serializer
	codec.EventFramer
	codec.KindSupporter
	codec.TargetSupporter
} = linesSerializer{}

func (linesSerializer) MediaType() string { return linesType }

func (l linesSerializer) Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (codec.Result, error) {
	doc, ok := bytes.CutPrefix(data, []byte("LINES "))
	if !ok {
		return codec.Result{}, errors.New("not a lines document")
	}
	return l.json.Decode(doc, defaults, into)
}

func (l linesSerializer) Encode(w io.Writer, obj scheme.Kinded) error {
	var buf bytes.Buffer
	buf.WriteString("LINES ")
	if err := l.json.Encode(&buf, obj); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func (linesSerializer) StreamContentType() string { return linesStream }

func (linesSerializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	dst = append(dst, "EVENT "+eventType+"\n"...)
	return append(dst, object...)
}

func (linesSerializer) Supports(gvk scheme.GroupVersionKind, _ any) bool { return gvk.Version == "v1" }

func (linesSerializer) SupportsTarget(as string) bool { return as != codec.AsTable }

// newLinesServer serves the standard media types and the lines one.
func newLinesServer(t *testing.T) *testServer {
	return newServer(t, func(o *rest.Options) {
		o.Serializers = append(standard.Serializers(o.Scheme), linesSerializer{json: codec.NewJSON(o.Scheme)})
	})
}

// readLines decodes a lines document into a map.
func readLines(t *testing.T, body []byte) map[string]any {
	t.Helper()
	doc, ok := bytes.CutPrefix(body, []byte("LINES "))
	if !ok {
		t.Fatalf("not a lines document: %q", body)
	}
	return response{body: doc}.json(t)
}

func TestSerializers_ANewMediaTypeIsServedForCreateGetAndList(t *testing.T) {
	s := newLinesServer(t)
	r := s.do("POST", widgetsPath, linesType, "LINES "+widgetJSON("w", "blue"), "Accept", linesType)
	if r.code != 201 || r.header.Get("Content-Type") != linesType {
		t.Fatalf("create: %d %q %s", r.code, r.header.Get("Content-Type"), r.body)
	}
	if got := get(readLines(t, r.body), "spec", "color"); got != "blue" {
		t.Errorf("created color %v, want blue", got)
	}
	tests := []struct {
		name, path, kind string
	}{
		{"get", widgetsPath + "/w", "Widget"},
		{"list", widgetsPath, "WidgetList"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("GET", tt.path, "", "", "Accept", linesType)
			if r.code != 200 || r.header.Get("Content-Type") != linesType {
				t.Fatalf("%d %q %s", r.code, r.header.Get("Content-Type"), r.body)
			}
			if got := readLines(t, r.body)["kind"]; got != tt.kind {
				t.Errorf("kind %v, want %s", got, tt.kind)
			}
		})
	}
}

func TestSerializers_ANewMediaTypesOwnLimitsDecideNegotiation(t *testing.T) {
	s := newLinesServer(t)
	s.create("w", "blue")
	tests := []struct {
		name, method, path, contentType, body, accept string
		code                                          int
		responseType                                  string
	}{
		{"a kind it has no encoding for is not acceptable (the Status is in its media type)", "GET", alphaPath, "", "", linesType, 406, linesType},
		{"a kind it has no encoding for falls back to JSON", "GET", alphaPath, "", "", linesType + ", application/json;q=0.5", 200, "application/json"},
		{"a body of a kind it cannot decode is unsupported", "POST", alphaPath, linesType, "LINES {}", "", 415, "application/json"},
		{"a target it cannot encode is not acceptable", "GET", widgetsPath, "", "", linesType + ";as=Table;v=v1;g=meta.k8s.io", 406, "application/json"},
		{"a target it can encode is served", "GET", widgetsPath, "", "", linesType + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", 200,
			linesType + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{"it is listed among the acceptable media types", "GET", widgetsPath + "/w", "", "", "text/plain", 406, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, tt.contentType, tt.body, "Accept", tt.accept)
			if r.code != tt.code || r.header.Get("Content-Type") != tt.responseType {
				t.Errorf("%d %q, want %d %q: %s", r.code, r.header.Get("Content-Type"), tt.code, tt.responseType, r.body)
			}
		})
	}
	r := s.do("GET", widgetsPath+"/w", "", "", "Accept", "text/plain")
	if msg, _ := r.json(t)["message"].(string); !strings.HasSuffix(msg, "application/cbor, "+linesType) {
		t.Errorf("406 message %q does not offer %s last", msg, linesType)
	}
}

func TestSerializers_ANewMediaTypeFramesWatchEvents(t *testing.T) {
	s := newLinesServer(t)
	s.create("a", "blue")
	res := s.openWatch(t, widgetsPath+"?watch=1&resourceVersion=0", linesType)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != linesStream {
		t.Fatalf("watch: %d %q, want 200 %q", res.StatusCode, res.Header.Get("Content-Type"), linesStream)
	}
	lines := bufio.NewScanner(res.Body)
	next := func() (string, map[string]any) {
		t.Helper()
		if !lines.Scan() || !strings.HasPrefix(lines.Text(), "EVENT ") {
			t.Fatalf("no event line: %q %v", lines.Text(), lines.Err())
		}
		typ := strings.TrimPrefix(lines.Text(), "EVENT ")
		if !lines.Scan() {
			t.Fatalf("no object line after EVENT %s: %v", typ, lines.Err())
		}
		return typ, readLines(t, lines.Bytes())
	}
	if typ, obj := next(); typ != "ADDED" || get(obj, "metadata", "name") != "a" {
		t.Errorf("first event %s %v, want ADDED a", typ, obj)
	}
	s.do("DELETE", widgetsPath+"/a", "", "")
	if typ, obj := next(); typ != "DELETED" || get(obj, "metadata", "name") != "a" {
		t.Errorf("second event %s %v, want DELETED a", typ, obj)
	}
}

func TestSerializers_ListWithoutJSONIsRefused(t *testing.T) {
	s := scheme.New()
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	_, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, Serializers: []codec.Serializer{codec.NewYAML(s)}})
	if err == nil || !strings.Contains(err.Error(), "application/json") {
		t.Errorf("New without JSON: err = %v, want one naming application/json", err)
	}
}
