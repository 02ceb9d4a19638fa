package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// benchServer starts the example server for a benchmark and returns a dynamic client of
// the widgets in namespace ns.
func benchServer(b *testing.B, backend, ns string) (*exampleServer, dynamic.ResourceInterface) {
	b.Helper()
	es := startExampleServer(b, backend)
	dc := dynamic.NewForConfigOrDie(es.restConfig(b))
	return es, dc.Resource(gvrWidgets).Namespace(ns)
}

// BenchmarkREST_Create creates one widget per iteration over loopback HTTP with
// client-go's dynamic client.
func BenchmarkREST_Create(b *testing.B) {
	for _, backend := range storageBackends {
		b.Run("storage="+backend, func(b *testing.B) {
			_, widgets := benchServer(b, backend, "bench")
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := widgets.Create(ctx, newWidget("bench", fmt.Sprintf("w-%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkREST_Get gets one widget per iteration (dynamic client, and raw HTTP without
// client-side decoding).
func BenchmarkREST_Get(b *testing.B) {
	for _, client := range []string{"dynamic", "raw"} {
		for _, backend := range storageBackends {
			b.Run("client="+client+"/storage="+backend, func(b *testing.B) {
				es, widgets := benchServer(b, backend, "bench")
				ctx := context.Background()
				if _, err := widgets.Create(ctx, newWidget("bench", "one", "red", 1, nil), metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				req, err := http.NewRequest("GET", es.URL+"/apis/toys.example.com/v1/namespaces/bench/widgets/one", nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+es.Token)
				req.Header.Set("Accept", "application/json")
				hc := es.Client
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if client == "dynamic" {
						if _, err := widgets.Get(ctx, "one", metav1.GetOptions{}); err != nil {
							b.Fatal(err)
						}
						continue
					}
					resp, err := hc.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		}
	}
}

// BenchmarkREST_List lists 100 widgets per iteration (dynamic client, and raw HTTP
// without client-side decoding).
func BenchmarkREST_List(b *testing.B) {
	for _, client := range []string{"dynamic", "raw"} {
		for _, backend := range storageBackends {
			b.Run("client="+client+"/storage="+backend, func(b *testing.B) {
				es, widgets := benchServer(b, backend, "bench")
				ctx := context.Background()
				for i := range 100 {
					if _, err := widgets.Create(ctx, newWidget("bench", fmt.Sprintf("w-%03d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				req, err := http.NewRequest("GET", es.URL+"/apis/toys.example.com/v1/namespaces/bench/widgets", nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+es.Token)
				req.Header.Set("Accept", "application/json")
				hc := es.Client
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if client == "dynamic" {
						l, err := widgets.List(ctx, metav1.ListOptions{})
						if err != nil {
							b.Fatal(err)
						}
						if len(l.Items) != 100 {
							b.Fatalf("%d items", len(l.Items))
						}
						continue
					}
					resp, err := hc.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		}
	}
}

// BenchmarkREST_Watch measures one create plus the delivery of its ADDED event to an
// open watch (dynamic client) per iteration.
func BenchmarkREST_Watch(b *testing.B) {
	for _, backend := range storageBackends {
		b.Run("storage="+backend, func(b *testing.B) {
			_, widgets := benchServer(b, backend, "bench")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := widgets.Watch(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Stop()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := widgets.Create(ctx, newWidget("bench", fmt.Sprintf("w-%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				for {
					ev, ok := <-w.ResultChan()
					if !ok {
						b.Fatal("watch closed")
					}
					if ev.Type == watch.Added {
						break
					}
				}
			}
		})
	}
}

// BenchmarkResttest_NewServer measures apitest.NewServer with the example scheme: from
// nothing to a server that has answered its first request (GET /readyz).
func BenchmarkResttest_NewServer(b *testing.B) {
	sch := api.NewScheme()
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		sub := &cleanupTB{TB: b}
		b.StartTimer()
		srv := apitest.NewServer(sub, sch, apitest.Options{})
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		b.StopTimer()
		sub.runCleanups()
		b.StartTimer()
	}
}

// cleanupTB runs the cleanups registered through it when runCleanups is called, so that
// each benchmark iteration stops its own server.
type cleanupTB struct {
	testing.TB
	cleanups []func()
}

func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }

func (c *cleanupTB) runCleanups() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.cleanups = nil
}
