package strategies_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkServiceCreateDelete measures a create and a delete over HTTP of a NodePort
// service (a cluster IP and a node port reserved, then released) beside a ConfigMap's
// (no allocation): the cost of the reservations.
func BenchmarkServiceCreateDelete(b *testing.B) {
	for _, c := range []struct{ name, path, body string }{
		{"NodePort service", servicesPath, `{"metadata":{"name":"%s"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`},
		{"ConfigMap", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"%s"},"data":{"a":"b"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv := serviceServers(b, 1)[0]
			hc := srv.Client()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				name := fmt.Sprintf("b%d", i)
				resp, err := hc.Post(srv.URL+c.path, "application/json", bytes.NewReader([]byte(fmt.Sprintf(c.body, name))))
				if err != nil || resp.StatusCode != http.StatusCreated {
					var st map[string]any
					_ = json.NewDecoder(resp.Body).Decode(&st)
					b.Fatalf("create: %v %v", err, st)
				}
				resp.Body.Close()
				req, _ := http.NewRequest(http.MethodDelete, srv.URL+c.path+"/"+name, nil)
				if resp, err = hc.Do(req); err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("delete: %v", err)
				}
				resp.Body.Close()
			}
		})
	}
}
