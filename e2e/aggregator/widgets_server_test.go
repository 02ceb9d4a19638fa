package aggregator

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/serving"
)

// The example server's API, as client-go addresses it.
const (
	toysGroup   = "toys.example.com"
	toysVersion = "v1"
)

// startWidgetsServer starts the example widget server (in memory) as an aggregated API
// server is deployed behind kube-apiserver: its serving certificate from files, the front
// proxy trusted by the flags the aggregator's operator gives it, and authentication and
// authorization delegated to kube-apiserver (here the stand-in) through a kubeconfig; the
// client CA is not a flag, so it comes from the stand-in's
// extension-apiserver-authentication ConfigMap. The flags go through serving.Options'
// AddFlags, as in the example's command.
func startWidgetsServer(e *environment) (*server.Server, error) {
	servingCert, err := e.servingCA.ServingCert("widgets")
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := servingCert.WriteFiles(e.pkiDir, "widgets-serving")
	if err != nil {
		return nil, err
	}
	frontProxyCAFile := filepath.Join(e.pkiDir, "front-proxy-ca.crt")
	if err := os.WriteFile(frontProxyCAFile, e.frontProxyCA.PEM, 0o600); err != nil {
		return nil, err
	}
	kubeconfigFile := filepath.Join(e.pkiDir, "kube-apiserver.kubeconfig")
	if err := e.kube.WriteKubeconfig(kubeconfigFile); err != nil {
		return nil, err
	}

	opts := serving.NewOptions()
	fs := flag.NewFlagSet("widgets", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.AddFlags(fs)
	err = fs.Parse([]string{
		"-tls-cert-file=" + certFile,
		"-tls-private-key-file=" + keyFile,
		"-requestheader-client-ca-file=" + frontProxyCAFile,
		"-requestheader-allowed-names=" + frontProxyClientName,
		"-requestheader-username-headers=X-Remote-User",
		"-requestheader-uid-headers=X-Remote-Uid",
		"-requestheader-group-headers=X-Remote-Group",
		"-requestheader-extra-headers-prefix=X-Remote-Extra-",
		"-authentication-kubeconfig=" + kubeconfigFile,
		"-authorization-kubeconfig=" + kubeconfigFile,
	})
	if err != nil {
		return nil, fmt.Errorf("widgets server flags: %w", err)
	}
	logger := slog.New(slog.DiscardHandler)
	if verboseLogs() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := server.New(server.Config{
		Addr:    "127.0.0.1:0",
		Storage: server.StorageMemory,
		Logger:  logger,
		Serving: opts,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the widgets server: %w", err)
	}
	srv.Start()
	return srv, nil
}
