package webhook_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/webhook"
)

type review struct {
	UID  string `json:"uid"`
	Seen string `json:"seen,omitempty"`
}

// caOf is the PEM bundle of a test server's certificate, as a webhook config carries it.
func caOf(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// otherCA is the PEM of a CA that signed none of httptest's certificates.
func otherCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestCall_AnswersOrFailsAsKubeApiserversWebhookClient(t *testing.T) {
	hang := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var in review
		_ = json.NewDecoder(r.Body).Decode(&in)
		_ = json.NewEncoder(w).Encode(review{UID: in.UID, Seen: r.URL.RawQuery + " " + r.Header.Get("Content-Type") + " " + r.Host})
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("not json")) })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"uid":"` + strings.Repeat("x", 2048) + `"}`))
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no you don't","reason":"Forbidden","code":403}`))
	})
	mux.HandleFunc("/crash", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("boom\n"))
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	defer close(hang) // before Close, which waits for the hung handler
	closed := httptest.NewTLSServer(mux)
	closedURL := closed.URL
	closed.Close()
	srvURL, _ := url.Parse(srv.URL)

	for _, tt := range []struct {
		name    string
		cc      webhook.ClientConfig
		opts    webhook.Options
		want    string // the answer's Seen, when the call succeeds
		wantErr string // a part of the error
		check   func(t *testing.T, err error)
	}{
		{name: "answers with kube's timeout parameter and JSON", cc: webhook.ClientConfig{URL: srv.URL + "/echo", CABundle: caOf(srv)},
			want: "timeout=30s application/json " + srvURL.Host},
		{name: "the path is joined as client-go joins it", cc: webhook.ClientConfig{URL: srv.URL + "//echo/", CABundle: caOf(srv)},
			want: "timeout=30s application/json " + srvURL.Host},
		{name: "a service is dialled at the resolved address and verified under its own name", cc: webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "ns", Name: "svc", Path: "/echo", Port: 8443}, CABundle: caOf(srv)},
			opts:    webhook.Options{Resolver: func(ns, name string, port int32) (*url.URL, error) { return srvURL, nil }},
			wantErr: `Post "https://svc.ns.svc:8443/echo?timeout=30s": tls: failed to verify certificate: x509: certificate is valid for example.com, *.example.com, not svc.ns.svc`},
		{name: "a service without a resolver is not found in DNS", cc: webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "ns", Name: "svc", Path: "/convert"}},
			wantErr: `failed calling webhook "hook": Post "https://svc.ns.svc:443/convert?timeout=30s": dial tcp: lookup svc.ns.svc: no such host`},
		{name: "a hung webhook times out", cc: webhook.ClientConfig{URL: srv.URL + "/hang", CABundle: caOf(srv)}, opts: webhook.Options{Timeout: 100 * time.Millisecond},
			wantErr: `Post "` + srv.URL + `/hang?timeout=100ms": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
		{name: "a refusing webhook", cc: webhook.ClientConfig{URL: closedURL + "/echo"}, wantErr: "connect: connection refused"},
		{name: "a certificate of another CA", cc: webhook.ClientConfig{URL: srv.URL + "/echo", CABundle: otherCA(t)},
			wantErr: "tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{name: "no caBundle verifies against the system roots", cc: webhook.ClientConfig{URL: srv.URL + "/echo", CABundle: []byte(" \n")},
			wantErr: "x509: certificate signed by unknown authority"},
		{name: "a non-JSON answer", cc: webhook.ClientConfig{URL: srv.URL + "/text", CABundle: caOf(srv)},
			wantErr: "couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')"},
		{name: "an empty answer", cc: webhook.ClientConfig{URL: srv.URL + "/empty", CABundle: caOf(srv)},
			wantErr: "0-length response with status code: 200 and content type: "},
		{name: "an oversized answer", cc: webhook.ClientConfig{URL: srv.URL + "/big", CABundle: caOf(srv)}, opts: webhook.Options{MaxResponseBytes: 1024},
			check: func(t *testing.T, err error) {
				var tl *webhook.TooLargeError
				if !errors.As(err, &tl) || tl.Limit != 1024 {
					t.Errorf("error %v is not a TooLargeError of 1024 bytes", err)
				}
			}},
		{name: "a Status answer keeps its message", cc: webhook.ClientConfig{URL: srv.URL + "/status", CABundle: caOf(srv)},
			check: func(t *testing.T, err error) {
				var se *webhook.StatusError
				if !errors.As(err, &se) || se.Code != 403 || se.Reason != "Forbidden" || se.Message != "no you don't" {
					t.Errorf("error %v: got %+v, want the webhook's Status", err, se)
				}
			}},
		{name: "a text 500 reads as client-go's", cc: webhook.ClientConfig{URL: srv.URL + "/crash", CABundle: caOf(srv)},
			wantErr: `an error on the server ("boom") has prevented the request from succeeding`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := webhook.New("hook", tt.cc, tt.opts)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer c.Close()
			var out review
			err = c.Call(context.Background(), review{UID: "u1"}, &out)
			switch {
			case tt.check != nil:
				tt.check(t, err)
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("Call: %v", err)
			case out.UID != "u1" || out.Seen != tt.want:
				t.Errorf("answer %+v, want uid u1 and %q", out, tt.want)
			}
			if err != nil {
				var ce *webhook.CallError
				if !errors.As(err, &ce) || ce.Webhook != "hook" || !strings.HasPrefix(err.Error(), `failed calling webhook "hook": `) {
					t.Errorf("error %v is not a CallError of the webhook", err)
				}
			}
		})
	}
}

// serveAs starts a TLS server whose certificate, signed by a new CA, names dnsName
// only, and returns it with the CA's PEM.
func serveAs(t *testing.T, dnsName string, h http.Handler) (*httptest.Server, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsName}, DNSNames: []string{dnsName}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

func TestCall_AServiceIsReachedThroughTheResolverUnderItsOwnName(t *testing.T) {
	srv, ca := serveAs(t, "convert.system.svc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(review{UID: "ok", Seen: r.Host + r.URL.Path})
	}))
	addr, _ := url.Parse(srv.URL)
	var asked string
	resolve := func(namespace, name string, port int32) (*url.URL, error) {
		asked = fmt.Sprintf("%s/%s:%d", namespace, name, port)
		return addr, nil
	}
	c, err := webhook.New("hook", webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "system", Name: "convert", Path: "/convert", Port: 9443}, CABundle: ca}, webhook.Options{Resolver: resolve})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out review
	if err := c.Call(context.Background(), review{}, &out); err != nil {
		t.Fatal(err)
	}
	if out.UID != "ok" || out.Seen != "convert.system.svc:9443/convert" || asked != "system/convert:9443" {
		t.Errorf("the webhook saw %q (resolver asked for %q), want the Service's host and path", out.Seen, asked)
	}
}

func TestNew_RefusesConfigsKubeCannotCall(t *testing.T) {
	for _, tt := range []struct {
		name string
		cc   webhook.ClientConfig
		want string
	}{
		{"no address", webhook.ClientConfig{}, `failed calling webhook "hook": webhook configuration must have either service or URL`},
		{"a URL that does not parse", webhook.ClientConfig{URL: "https://a b/"}, `failed calling webhook "hook": Unparsable URL: parse "https://a b/": invalid character " " in host name`},
		{"a caBundle without PEM", webhook.ClientConfig{URL: "https://x", CABundle: []byte("junk")}, `failed calling webhook "hook": unable to load root certificates: unable to parse bytes as PEM block`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webhook.New("hook", tt.cc, webhook.Options{})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestClusterDNS_IsKubesDefaultServiceAddress(t *testing.T) {
	u, err := webhook.ClusterDNS("andromeda", "ross", 443)
	if err != nil || u.String() != "https://ross.andromeda.svc:443" {
		t.Fatalf("ClusterDNS = %v, %v", u, err)
	}
	if _, err := webhook.ClusterDNS("", "ross", 443); err == nil {
		t.Fatal("an empty namespace resolved")
	}
}
