package server

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/kubeconfig"
)

func TestEtcdConfig_CheckRefusesWhatCannotConnect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     EtcdConfig
		wantErr bool
	}{
		{"http and https endpoints", EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379", "https://etcd-0.etcd:2379"}}, false},
		{"a client certificate with its key", EtcdConfig{Endpoints: []string{"https://10.0.0.1:2379"}, CertFile: "c", KeyFile: "k"}, false},
		{"no endpoints", EtcdConfig{}, true},
		{"an endpoint without a scheme", EtcdConfig{Endpoints: []string{"10.0.0.1:2379"}}, true},
		{"an endpoint of another scheme", EtcdConfig{Endpoints: []string{"unix:///run/etcd.sock"}}, true},
		{"an endpoint without a host", EtcdConfig{Endpoints: []string{"https://"}}, true},
		{"a client certificate without a key", EtcdConfig{Endpoints: []string{"https://10.0.0.1:2379"}, CertFile: "c"}, true},
		{"a key without a client certificate", EtcdConfig{Endpoints: []string{"https://10.0.0.1:2379"}, KeyFile: "k"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.check(); (err != nil) != tc.wantErr {
				t.Errorf("check() = %v, want error: %v", err, tc.wantErr)
			}
		})
	}
}

// writePKI writes a self-signed certificate (its own CA) and its key as PEM files.
func writePKI(t *testing.T) (caFile, certFile, keyFile string, ca *x509.Certificate) {
	t.Helper()
	cert, caPEM, err := kubeconfig.SelfSignedCertificate("etcd test", time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caFile, certFile, keyFile = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	for file, data := range map[string][]byte{
		caFile:   caPEM,
		certFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		keyFile:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}),
	} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return caFile, certFile, keyFile, ca
}

func TestEtcdConfig_TLSConfigOfKubesFlags(t *testing.T) {
	caFile, certFile, keyFile, ca := writePKI(t)
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	https := []string{"https://10.0.0.1:2379"}
	for _, tc := range []struct {
		name      string
		cfg       EtcdConfig
		wantTLS   bool
		wantRoots bool
		wantCerts int
		wantErr   bool
	}{
		{name: "plain http without files is plain TCP", cfg: EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}}},
		{name: "https without files trusts the system's roots", cfg: EtcdConfig{Endpoints: https}, wantTLS: true},
		{name: "a CA file is the only root", cfg: EtcdConfig{Endpoints: https, CAFile: caFile}, wantTLS: true, wantRoots: true},
		{name: "a client certificate is presented", cfg: EtcdConfig{Endpoints: https, CAFile: caFile, CertFile: certFile, KeyFile: keyFile},
			wantTLS: true, wantRoots: true, wantCerts: 1},
		{name: "a CA file turns TLS on", cfg: EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}, CAFile: caFile}, wantTLS: true, wantRoots: true},
		{name: "a CA file without PEM is refused", cfg: EtcdConfig{Endpoints: https, CAFile: notPEM}, wantErr: true},
		{name: "a missing CA file is refused", cfg: EtcdConfig{Endpoints: https, CAFile: notPEM + ".missing"}, wantErr: true},
		{name: "a key that is not the certificate's is refused", cfg: EtcdConfig{Endpoints: https, CertFile: certFile, KeyFile: caFile}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.cfg.tlsConfig()
			if (err != nil) != tc.wantErr {
				t.Fatalf("tlsConfig() error = %v, want error: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if (got != nil) != tc.wantTLS {
				t.Fatalf("tlsConfig() = %v, want TLS: %v", got, tc.wantTLS)
			}
			if got == nil {
				return
			}
			if got.MinVersion < 0x0303 {
				t.Errorf("MinVersion %x, want TLS 1.2 or later", got.MinVersion)
			}
			if want := x509.NewCertPool(); tc.wantRoots {
				want.AddCert(ca)
				if got.RootCAs == nil || !got.RootCAs.Equal(want) {
					t.Errorf("RootCAs are not the CA file's certificate")
				}
			} else if got.RootCAs != nil {
				t.Errorf("RootCAs set without a CA file; want the system's")
			}
			if len(got.Certificates) != tc.wantCerts {
				t.Errorf("%d client certificates, want %d", len(got.Certificates), tc.wantCerts)
			}
		})
	}
}
