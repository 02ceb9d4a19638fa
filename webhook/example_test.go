package webhook_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/apikit-dev/apikit/webhook"
)

// A caller sends its review and reads the answer; a failure to reach the webhook is a
// CallError, whose Err a caller words into its own message.
func Example() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in)
		_ = json.NewEncoder(w).Encode(map[string]any{"echo": in["ask"]})
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	c, err := webhook.New("echo.example.com", webhook.ClientConfig{URL: srv.URL + "/echo", CABundle: ca}, webhook.Options{})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	var out struct{ Echo string }
	if err := c.Call(context.Background(), map[string]any{"ask": "hello"}, &out); err != nil {
		panic(err)
	}
	fmt.Println(out.Echo)

	behindService, _ := webhook.New("svc.example.com", webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "system", Name: "hooks"}}, webhook.Options{})
	err = behindService.Call(context.Background(), map[string]any{}, &out)
	var ce *webhook.CallError
	fmt.Println(errors.As(err, &ce), ce.Err)
	// Output:
	// hello
	// true Post "https://hooks.system.svc:443/?timeout=30s": dial tcp: lookup hooks.system.svc: no such host
}
