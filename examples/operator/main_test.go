package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/examples/operator/controller"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr error
	}{
		{name: "no flags give the defaults", args: nil,
			want: config{opts: controller.Options{Workers: 2, ResyncPeriod: 10 * time.Minute}}},
		{name: "every flag is read",
			args: []string{"-kubeconfig", "k.yaml", "-context", "c", "-namespace", "ns", "-workers", "4", "-resync", "0", "-v"},
			want: config{kubeconfig: "k.yaml", context: "c", verbose: true, opts: controller.Options{Namespace: "ns", Workers: 4}}},
		{name: "help is reported as such", args: []string{"-h"}, wantErr: flag.ErrHelp},
		{name: "an unknown flag is a usage error", args: []string{"-bogus"}, wantErr: errUsage},
		{name: "arguments after the flags are a usage error", args: []string{"extra"}, wantErr: errUsage},
		{name: "zero workers are a usage error", args: []string{"-workers", "0"}, wantErr: errUsage},
		{name: "a negative resync is a usage error", args: []string{"-resync", "-1s"}, wantErr: errUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(tt.args, io.Discard)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("parseFlags(%q) error = %v, want %v", tt.args, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseFlags(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestRun_FailsWithoutAReadableKubeconfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.kubeconfig")
	err := run(t.Context(), []string{"-kubeconfig", missing}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loading kubeconfig") {
		t.Errorf("run with a missing kubeconfig = %v, want a loading kubeconfig error", err)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and the test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRun_ReconcilesWidgetsOfTheExampleServer runs the command the way its documentation
// says: against the example server (token, TLS and all) through the kubeconfig the server
// writes, until its context is cancelled.
func TestRun_ReconcilesWidgetsOfTheExampleServer(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "widgets.kubeconfig")
	srv, err := server.New(server.Config{
		Addr:           "127.0.0.1:0",
		Storage:        server.StorageMemory,
		KubeconfigPath: kubeconfig,
		Logger:         slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("starting the example server: %v", err)
	}
	srv.Start()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the example server: %v", err)
		}
	})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-kubeconfig", kubeconfig, "-resync", "0"}, &logs) }()

	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	widgets := client.Resource(controller.WidgetsResource).Namespace("default")
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "gear"},
		"spec":       map[string]any{"color": "blue", "replicas": int64(4)},
	}}
	if _, err := widgets.Create(t.Context(), widget, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating widget: %v", err)
	}
	want := controller.Status{Phase: controller.PhaseReady, Replicas: 4, ObservedGeneration: 1}
	var got controller.Status
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		w, err := widgets.Get(ctx, "gear", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got, err = controller.CurrentStatus(w)
		return got == want, err
	})
	if err != nil {
		t.Fatalf("widget status = %+v, want %+v: %v\nlogs:\n%s", got, want, err, logs.String())
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30s of cancel")
	}
	// The status may be seen before the controller has read the answer to its update, so
	// the "widget status updated" line may be cut off by the cancel; the start is not.
	if out := logs.String(); !strings.Contains(out, "widget controller started") || strings.Contains(out, "level=ERROR") {
		t.Errorf("logs should record the start and no error:\n%s", out)
	}
}
