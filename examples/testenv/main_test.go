package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const gizmos = "/apis/lab.example.com/v1/namespaces/default/gizmos"

// startTestenv starts the server of args (with -addr 127.0.0.1:0 and a kubeconfig in a
// temporary directory unless given) and closes it when the test ends.
func startTestenv(t *testing.T, args ...string) (*http.Client, string, string) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	f, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-kubeconfig", kubeconfig}, args...), io.Discard)
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	srv, err := start(f, io.Discard)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	written, err := os.ReadFile(kubeconfig)
	if err != nil || !bytes.Equal(written, srv.Kubeconfig) {
		t.Fatalf("kubeconfig file = %q, %v; want the server's kubeconfig", written, err)
	}
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") || !bytes.Contains(written, []byte(srv.URL)) || !bytes.Contains(written, []byte(`token: "`+srv.Token()+`"`)) {
		t.Fatalf("URL %q, kubeconfig %s; want https and the kubeconfig naming the URL and token", srv.URL, written)
	}
	return srv.Client(), srv.URL, srv.Token()
}

func TestStart_ServesTheCRDsOfTheDirectoryToHoldersOfTheToken(t *testing.T) {
	client, url, token := startTestenv(t, "-crds", "../widgets/crds", "-token", "s3cret")
	if token != "s3cret" {
		t.Errorf("token = %q, want the -token flag's", token)
	}
	gizmo := `{"apiVersion":"lab.example.com/v1","kind":"Gizmo","metadata":{"name":"g1"}}`
	resp, err := client.Post(url+gizmos, "application/json", strings.NewReader(gizmo))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("POST gizmo with the token = %d, want 201", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", url+gizmos, nil)
	req.Header.Set("Authorization", "Bearer wrong")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET gizmos with a wrong token = %d, want 401", resp.StatusCode)
	}
}

// The CEL rules of a CRD (kubebuilder's +kubebuilder:validation:XValidation) are checked
// as kube-apiserver checks them: an object that breaks one is kube's 422 Invalid, with the
// rule's message on the field of the rule.
func TestStart_ChecksTheCELRulesOfTheCRDs(t *testing.T) {
	client, url, _ := startTestenv(t, "-crds", "testdata/rules")
	const widgets = "/apis/toys.example.com/v1/namespaces/default/widgets"
	tests := []struct {
		name       string
		body       string
		wantCode   int
		wantStatus string
	}{
		{
			name:     "an object the rule allows is created",
			body:     `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":10}}`,
			wantCode: http.StatusCreated,
		},
		{
			name:     "an object that breaks the rule is kube's 422 with the rule's message, without the value of an object",
			body:     `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"replicas":11}}`,
			wantCode: http.StatusUnprocessableEntity,
			wantStatus: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
				`"message":"Widget.toys.example.com \"w2\" is invalid: spec: Invalid value: replicas must be at most 10",` +
				`"reason":"Invalid","details":{"name":"w2","group":"toys.example.com","kind":"Widget",` +
				`"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: replicas must be at most 10","field":"spec"}]},"code":422}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := client.Post(url+widgets, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("POST = %d %s, want %d", resp.StatusCode, body, tt.wantCode)
			}
			if tt.wantStatus != "" && strings.TrimSpace(string(body)) != tt.wantStatus {
				t.Errorf("POST body:\n got %s\nwant %s", body, tt.wantStatus)
			}
		})
	}
}

func TestStart_MakesARandomTokenWithoutTheFlag(t *testing.T) {
	_, _, token := startTestenv(t)
	if len(token) < 32 {
		t.Errorf("token = %q, want a random one", token)
	}
}

func TestStart_RefusesWhatItCannotServe(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a missing CRD directory", []string{"-crds", "testdata/missing"}, "testdata/missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			f, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-kubeconfig", kubeconfig}, tt.args...), io.Discard)
			if err != nil {
				t.Fatalf("parseFlags: %v", err)
			}
			srv, err := start(f, io.Discard)
			if err == nil {
				srv.Close()
				t.Fatalf("start = nil error, want one naming %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("start = %v, want it to name %q", err, tt.want)
			}
			if _, err := os.Stat(kubeconfig); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("kubeconfig after a failed start: %v, want none written", err)
			}
		})
	}
}

func TestRun_StopsWhenTheContextEnds(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"-addr", "127.0.0.1:0", "-kubeconfig", kubeconfig}, &out, io.Discard); err != nil {
		t.Fatalf("run = %v, want nil", err)
	}
	if !strings.Contains(out.String(), "serving https://127.0.0.1:") || !strings.Contains(out.String(), kubeconfig) {
		t.Errorf("run printed %q, want the URL and the kubeconfig's path", out.String())
	}
}

func TestParseFlags_RefusesBadCommandLines(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want error
	}{
		{"an unknown flag", []string{"-port", "1"}, errUsage},
		{"a stray argument", []string{"crds"}, errUsage},
		{"help", []string{"-h"}, flag.ErrHelp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseFlags(tt.args, io.Discard); !errors.Is(err, tt.want) {
				t.Errorf("parseFlags(%q) = %v, want %v", tt.args, err, tt.want)
			}
		})
	}
}
