package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/apikit-dev/apikit/examples/operator/controller"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2) // the flag set has printed the problem and the usage
	case err != nil:
		fmt.Fprintln(os.Stderr, "widget-operator:", err)
		os.Exit(1)
	}
}

// errUsage marks a command line that run rejected after printing why.
var errUsage = errors.New("bad command line")

// config is what the command line says.
type config struct {
	kubeconfig string
	context    string
	opts       controller.Options
	verbose    bool
}

// parseFlags turns the command line into a config; problems (and -h) are printed on
// output.
func parseFlags(args []string, output io.Writer) (config, error) {
	fs := flag.NewFlagSet("widget-operator", flag.ContinueOnError)
	fs.SetOutput(output)
	var cfg config
	fs.StringVar(&cfg.kubeconfig, "kubeconfig", "", "kubeconfig `file` of the server (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&cfg.context, "context", "", "kubeconfig `context` to use (default: its current context)")
	fs.StringVar(&cfg.opts.Namespace, "namespace", "", "reconcile only the Widgets of this `namespace` (default: all)")
	fs.IntVar(&cfg.opts.Workers, "workers", 2, "how many Widgets to reconcile at once")
	fs.DurationVar(&cfg.opts.ResyncPeriod, "resync", 10*time.Minute, "how often to look at every Widget again (0: never)")
	fs.BoolVar(&cfg.verbose, "v", false, "log retries after conflicts too")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(output, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return config{}, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if cfg.opts.Workers < 1 || cfg.opts.ResyncPeriod < 0 {
		fmt.Fprintln(output, "-workers must be at least 1 and -resync not negative")
		return config{}, fmt.Errorf("%w: -workers %d, -resync %v", errUsage, cfg.opts.Workers, cfg.opts.ResyncPeriod)
	}
	return cfg, nil
}

// run parses args, connects to the server of the kubeconfig and runs the controller,
// logging on logOutput, until ctx ends; it returns nil then.
func run(ctx context.Context, args []string, logOutput io.Writer) error {
	cfg, err := parseFlags(args, logOutput)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(logOutput, &slog.HandlerOptions{Level: level}))

	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = cfg.kubeconfig
	restConfig, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: cfg.context}).ClientConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	restConfig.UserAgent = "widget-operator"
	client, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("creating client for %s: %w", restConfig.Host, err)
	}
	cfg.opts.Logger = logger
	ctrl, err := controller.New(client, cfg.opts)
	if err != nil {
		return err
	}
	logger.Info("connecting", "server", restConfig.Host, "resource", controller.WidgetsResource.String())
	err = ctrl.Run(ctx)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // stopped before the cache synced: still a requested stop
	}
	return err
}
