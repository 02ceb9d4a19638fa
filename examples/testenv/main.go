// Command testenv is an in-memory API server for the tests of controllers written in any
// language (Python's kopf or official client, shell scripts with kubectl): it serves
// the CustomResourceDefinitions of a directory, and the customresourcedefinitions
// resource itself, and writes a kubeconfig for them.
//
//	go run ./examples/testenv -crds config/crd/bases -addr 127.0.0.1:8443 -kubeconfig ./testenv.kubeconfig
//	KUBECONFIG=./testenv.kubeconfig pytest
//
// Flags:
//
//	-crds DIR          CustomResourceDefinition manifests to serve (a directory of .yaml,
//	                   .yml and .json files, such as kubebuilder's config/crd/bases, or one file)
//	-addr ADDR         listen address (default 127.0.0.1:8443)
//	-kubeconfig FILE   where to write the kubeconfig (default ./testenv.kubeconfig)
//	-token TOKEN       bearer token clients must send (default: random, in the kubeconfig)
//
// The server speaks HTTPS with a certificate for 127.0.0.1, ::1 and localhost made at
// start, which the kubeconfig embeds with the token. Everything is kept in memory and
// forgotten when the server stops (SIGINT or SIGTERM). The CRDs are established before
// the kubeconfig is written, so a script may wait for the file and then start.
//
// CRDs' CEL validation rules (x-kubernetes-validations, kubebuilder's
// +kubebuilder:validation:XValidation markers) are checked as kube-apiserver checks them:
// this command is a module of its own that links github.com/apikit-dev/apikit/cel, so that
// apikit's main module stays free of cel-go. Go tests may use the envtest module
// (github.com/apikit-dev/apikit/envtest) instead, which checks the rules too.
//
// Kubernetes' core kinds (Namespace, ConfigMap, Secret, ServiceAccount, Event, Lease,
// SelfSubjectReview) are served beside the CRDs, with the namespace lifecycle and the
// garbage collector running as on a cluster.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/cel/policy"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(1)
	}
}

// errUsage reports a command line the flag package has already explained.
var errUsage = errors.New("bad command line")

// flags are the command line of testenv.
type flags struct {
	crds, addr, kubeconfig, token string
}

func parseFlags(args []string, output io.Writer) (flags, error) {
	fs := flag.NewFlagSet("testenv", flag.ContinueOnError)
	fs.SetOutput(output)
	var f flags
	fs.StringVar(&f.crds, "crds", "", "`directory` (or file) of CustomResourceDefinition manifests to serve (CEL rules included)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8443", "listen `address` (host:port)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "./testenv.kubeconfig", "`file` to write the kubeconfig to")
	fs.StringVar(&f.token, "token", "", "bearer `token` clients must send (default: random)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flags{}, err
		}
		return flags{}, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(output, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return flags{}, errUsage
	}
	return f, nil
}

// run serves until ctx ends, then stops the server.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	srv, err := start(f, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "testenv: serving %s; kubeconfig %s\n", srv.URL, f.kubeconfig)
	<-ctx.Done()
	return srv.Close()
}

// start starts the server of f with its CRDs established and writes its kubeconfig. The
// server and its controllers log to logs; /metrics has their metrics and /livez and
// /healthz their health checks.
func start(f flags, logs io.Writer) (*apitest.Server, error) {
	var crds []*apiextensions.CustomResourceDefinition
	if f.crds != "" {
		var err error
		if crds, err = apiextensions.Load(f.crds); err != nil {
			return nil, err
		}
	}
	token := f.token
	if token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("making a token: %w", err)
		}
		token = hex.EncodeToString(b)
	}
	s, err := coreScheme()
	if err != nil {
		return nil, err
	}
	// The server runs until Close: run closes it when its context ends, once the server
	// has started and said where it serves, even when an interrupt came meanwhile.
	plugins := admission.BuiltinWith(admission.Options{
		Webhooks:         admission.WebhookOptions{Conditions: cel.NewConditionCompiler()},
		ValidatingPolicy: policy.NewValidating(),
	})
	srv, err := apitest.Start(context.Background(), s, apitest.Options{
		REST: rest.Options{
			Strategies:          strategies.Builtin(),
			MutatingAdmission:   plugins.Mutating,
			ValidatingAdmission: plugins.Validating,
			Logger:              slog.New(slog.NewTextHandler(logs, nil)),
			Metrics:             metrics.NewRegistry(),
			Rules:               cel.New(),
		},
		Addr:        f.addr,
		TLS:         true,
		Token:       token,
		CRDs:        crds,
		Controllers: true,
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.kubeconfig, srv.Kubeconfig, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("writing the kubeconfig: %w", err), srv.Close())
	}
	return srv, nil
}

// coreScheme returns the scheme of the kinds served beside the CRDs: Kubernetes' core
// kinds (package builtin).
func coreScheme() (*scheme.Scheme, error) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}
