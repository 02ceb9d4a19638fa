package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/serving"
)

// writePolicy writes an audit policy recording every request at level and returns its
// path.
func writePolicy(t *testing.T, level audit.Level) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.yaml")
	doc := "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: " + string(level) + "\n"
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// readEvents decodes the audit log at path, one strict audit.Event a line.
func readEvents(t *testing.T, path string) []audit.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var ev audit.Event
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("audit line is no Event: %v\n%s", err, sc.Bytes())
		}
		out = append(out, ev)
	}
	return out
}

func TestServer_AuditLogPathReceivesTheEventsOfThePolicy(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit", "audit.log") // the directory is created
	srv := start(t, server.Config{
		Storage: server.StorageMemory, AuditPolicyFile: writePolicy(t, audit.LevelMetadata), AuditLogPath: logPath,
	})
	if code, body := do(t, srv, "POST", widgetsPath, srv.Token(), widgetJSON("a", "blue")); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, _ := do(t, srv, "GET", widgetsPath+"/a", "", ""); code != 401 {
		t.Fatalf("get without a token: %d, want 401", code)
	}
	if err := srv.Close(); err != nil { // every event is written once Close returns
		t.Fatal(err)
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log: %v, mode %v, want 0600", err, fi.Mode())
	}
	var created []audit.Event
	var unauthorized []audit.Event
	for _, ev := range readEvents(t, logPath) {
		switch {
		case ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "widgets":
			created = append(created, ev)
		case ev.ResponseStatus != nil && ev.ResponseStatus.Code == 401:
			unauthorized = append(unauthorized, ev)
		}
	}
	if len(created) != 2 || created[0].Stage != audit.StageRequestReceived || created[1].Stage != audit.StageResponseComplete {
		t.Fatalf("create events %+v, want RequestReceived and ResponseComplete", created)
	}
	done := created[1]
	if done.Level != audit.LevelMetadata || done.User.Username != "admin" || done.ResponseStatus == nil || done.ResponseStatus.Code != 201 ||
		done.ObjectRef.Name != "a" || done.RequestObject != nil || done.Annotations["authorization.k8s.io/decision"] != "allow" {
		t.Errorf("create's ResponseComplete = %+v", done)
	}
	if len(unauthorized) != 1 || unauthorized[0].Stage != audit.StageResponseStarted {
		t.Errorf("the request without credentials: %+v, want one ResponseStarted event as kube records it", unauthorized)
	}
}

func TestServer_AuditLogPathAppendsToAnExistingFile(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(logPath, []byte(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"None","auditID":"earlier","stage":"ResponseComplete","requestURI":"/","verb":"get","user":{},"requestReceivedTimestamp":null,"stageTimestamp":null}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := start(t, server.Config{Storage: server.StorageMemory, AuditPolicyFile: writePolicy(t, audit.LevelMetadata), AuditLogPath: logPath})
	do(t, srv, "GET", widgetsPath, srv.Token(), "")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, logPath)
	if len(evs) < 3 || evs[0].AuditID != "earlier" {
		t.Errorf("%d events, first %q: want the earlier line kept and the new ones after it", len(evs), evs[0].AuditID)
	}
}

func TestNew_AuditLogPathWithoutPolicyRecordsNothingAsKube(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.log")
	logger, serverLog := fileLogger(t)
	srv := start(t, server.Config{Storage: server.StorageMemory, AuditLogPath: logPath, Logger: logger})
	do(t, srv, "GET", widgetsPath, srv.Token(), "")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(logPath); len(data) > 0 {
		t.Errorf("audit log without a policy: %v %q, want nothing", err, data)
	}
	if text := readLog(t, serverLog); !strings.Contains(text, "no audit policy file provided") {
		t.Errorf("log %q does not say that nothing is recorded", text)
	}
}

func TestServer_MetricsAnswerTheAdminToken(t *testing.T) {
	clients := newTestCA(t, "client CA")
	srv := startWithServing(t, func(o *serving.Options) { o.ClientCAFile = clients.file(t) })
	do(t, srv, "GET", widgetsPath, srv.Token(), "")
	// The list is counted when its handler returns, which may be just after its client
	// read the response: scrape until it shows.
	want := `apiserver_request_total{verb="LIST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver",code="200"} 1`
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var code int
		if code, body = do(t, srv, "GET", "/metrics", srv.Token(), ""); code != 200 {
			t.Fatalf("GET /metrics with the token: %d %s", code, body)
		}
		if strings.Contains(string(body), want) {
			break
		}
	}
	if !strings.Contains(string(body), "# TYPE apiserver_request_total counter\n") || !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %s\n%s", want, body)
	}
	if code, _ := do(t, srv, "GET", "/metrics", "", ""); code != 401 {
		t.Errorf("GET /metrics without credentials: %d, want 401", code)
	}
	resp, err := trustingClient(t, srv, clients.issue(t, "bob")).Get(srv.TLSURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	denied, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 403 || !strings.Contains(string(denied), `User \"bob\" cannot get path \"/metrics\"`) {
		t.Errorf("GET /metrics as a user RBAC does not bind: %d %s, want kube's 403", resp.StatusCode, denied)
	}
}

func TestServer_AccessLogWritesOneLinePerRequestToTheLogger(t *testing.T) {
	for _, on := range []bool{true, false} {
		logger, serverLog := fileLogger(t)
		srv := start(t, server.Config{Storage: server.StorageMemory, AccessLog: on, Logger: logger})
		do(t, srv, "GET", widgetsPath+"?limit=7", srv.Token(), "")
		if err := srv.Close(); err != nil { // the line is written when the request ends
			t.Fatal(err)
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(readLog(t, serverLog)), "\n") {
			var line map[string]any
			if err := json.Unmarshal([]byte(l), &line); err == nil && line["msg"] == "HTTP" {
				lines = append(lines, line)
			}
		}
		switch {
		case !on && len(lines) != 0:
			t.Errorf("AccessLog off: %d access lines", len(lines))
		case on && (len(lines) != 1 || lines[0]["URI"] != widgetsPath+"?limit=7" || lines[0]["user"] != "admin" || lines[0]["resp"] != 200.0 || lines[0]["verb"] != "LIST"):
			t.Errorf("AccessLog on: lines %v, want one for the list", lines)
		}
	}
}

// fileLogger returns a logger writing JSON lines to a new file, and the file's path: the
// test reads it after Close, without sharing memory with the server's goroutines.
func fileLogger(t *testing.T) (*slog.Logger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return slog.New(slog.NewJSONHandler(f, nil)), path
}

// readLog returns the text of the log file at path.
func readLog(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
