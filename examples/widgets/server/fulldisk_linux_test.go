package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// mountTmpfs mounts a tmpfs of size in a temporary directory and unmounts it when the
// test ends, after the server's cleanup; it skips the test where mounting is not
// permitted (storage/bolt's fault-injecting tests cover the store without it).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs: %v", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// health GETs path over plain HTTP, anonymously, as a probe does.
func health(t *testing.T, srv *server.Server, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitForHealth polls path until it answers code (a check's result is kept for up to a
// second, rest.HealthCheckTimeout/2), at most 50 times over about five seconds.
func waitForHealth(t *testing.T, srv *server.Server, path string, code int) string {
	t.Helper()
	var got int
	var body string
	for range 50 {
		if got, body = health(t, srv, path); got == code {
			return body
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s = %d %q, want %d", path, got, body, code)
	return ""
}

func TestServer_AFullDiskFailsLivezAndReadyzByNameAndAnswers503UntilRestarted(t *testing.T) {
	dataDir := mountTmpfs(t, "2m")
	cfg := server.Config{Storage: server.StorageBolt, DataDir: dataDir, Token: "tok"}
	first, err := server.New(withDefaults(cfg))
	if err != nil {
		t.Fatal(err)
	}
	first.Start()
	closed := false
	defer func() {
		if !closed {
			_ = first.Close()
		}
	}()
	for _, path := range []string{"/readyz", "/livez", "/healthz"} {
		if code, body := health(t, first, path); code != 200 || body != "ok" {
			t.Fatalf("GET %s before the disk fills = %d %q, want 200 ok", path, code, body)
		}
	}

	// Widgets of 100 KB of annotations until a create fails: the disk is full.
	padding := strings.Repeat("p", 100<<10)
	var acked []string
	var code int
	var body []byte
	for i := range 60 { // 6 MB: three times the disk
		name := fmt.Sprintf("w%02d", i)
		obj := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"` + name +
			`","annotations":{"padding":"` + padding + `"}},"spec":{"color":"red"}}`
		if code, body = do(t, first, "POST", widgetsPath, "tok", obj); code != http.StatusCreated {
			break
		}
		acked = append(acked, name)
	}
	t.Logf("2 MiB tmpfs: %d creates of 100 KB acknowledged, then %d", len(acked), code)
	var st struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("failed create: %d %s is not a Status: %v", code, body, err)
	}
	if code != http.StatusServiceUnavailable || st.Code != 503 || st.Reason != "ServiceUnavailable" {
		t.Errorf("create on the full disk = %d %s, want a 503 ServiceUnavailable Status", code, body)
	}
	if strings.Contains(st.Message, dataDir) || strings.Contains(st.Message, "/") {
		t.Errorf("message %q names a path", st.Message)
	}

	// /readyz and /livez fail, naming the check as kube-apiserver does; so does /healthz.
	for _, tc := range []struct{ path, want string }{
		{"/readyz", "[-]bolt failed: reason withheld\nreadyz check failed"},
		{"/livez", "[-]bolt failed: reason withheld\nlivez check failed"},
		{"/healthz", "[-]bolt failed: reason withheld\nhealthz check failed"},
		{"/readyz/bolt", "internal server error: reason withheld"},
		{"/livez/bolt", "internal server error: reason withheld"},
	} {
		if got := waitForHealth(t, first, tc.path, http.StatusInternalServerError); !strings.Contains(got, tc.want) {
			t.Errorf("GET %s = %q, want it to contain %q", tc.path, got, tc.want)
		}
	}
	if code, body := health(t, first, "/readyz"); !strings.HasPrefix(body, "[+]ping ok\n") || code != 500 {
		t.Errorf("GET /readyz = %d %q, want ping listed first", code, body)
	}

	// Space is freed: writes stay refused, and /livez keeps asking for a restart.
	if err := syscall.Mount("tmpfs", dataDir, "tmpfs", syscall.MS_REMOUNT, "size=32m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	if code, body := do(t, first, "POST", widgetsPath, "tok", widgetJSON("after", "red")); code != http.StatusServiceUnavailable {
		t.Errorf("create once space is freed = %d %s, want 503 until a restart", code, body)
	}
	waitForHealth(t, first, "/livez", http.StatusInternalServerError)
	if err := first.Close(); err != nil {
		t.Logf("Close on the failed store: %v", err) // its last checkpoint may fail; Open applies the log
	}
	closed = true

	// The restart: every acknowledged widget is there, health is ok, writes are taken.
	second := start(t, cfg)
	for _, name := range acked {
		if code, body := do(t, second, "GET", widgetsPath+"/"+name, "tok", ""); code != http.StatusOK {
			t.Errorf("GET %s after the restart = %d %.200s", name, code, body)
		}
	}
	for _, path := range []string{"/readyz", "/livez"} {
		if code, body := health(t, second, path); code != 200 || body != "ok" {
			t.Errorf("GET %s after the restart = %d %q, want 200 ok", path, code, body)
		}
	}
	if code, body := do(t, second, "POST", widgetsPath, "tok", widgetJSON("after", "red")); code != http.StatusCreated {
		t.Errorf("create after the restart = %d %s", code, body)
	}
}

// withDefaults fills in what start does: a free loopback port and a quiet logger.
func withDefaults(cfg server.Config) server.Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	return cfg
}
