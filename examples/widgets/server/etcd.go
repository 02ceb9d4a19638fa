package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/cache"
	"github.com/apikit-dev/apikit/storage/etcd"
)

// EtcdConfig is where StorageEtcd keeps the objects, with kube-apiserver's etcd flags:
// several servers with the same Endpoints and Prefix are replicas of one API.
type EtcdConfig struct {
	// Endpoints are the etcd client URLs, http:// or https:// (kube's --etcd-servers).
	Endpoints []string
	// Prefix is put before every key (kube's --etcd-prefix; "" means "/registry").
	Prefix string
	// CAFile verifies the etcd servers' certificates (kube's --etcd-cafile); "" means
	// the system's roots.
	CAFile string
	// CertFile and KeyFile are the client certificate presented to etcd (kube's
	// --etcd-certfile and --etcd-keyfile), both or neither.
	CertFile, KeyFile string
	// CompactionInterval is how often this replica compacts etcd's history (kube's
	// --etcd-compaction-interval); 0 means etcd.DefaultCompactionInterval (5m, as kube),
	// a negative value never (etcd's own --auto-compaction, or another replica, does).
	CompactionInterval time.Duration
	// NoWatchCache reads straight from etcd instead of through a watch cache
	// (storage/cache) in front of it, kube's --watch-cache=false. The cache keeps one
	// etcd watch per resource and answers watches, lists and gets from memory.
	NoWatchCache bool
}

// check returns the first mistake of c for StorageEtcd.
func (c EtcdConfig) check() error {
	if len(c.Endpoints) == 0 {
		return errors.New("etcd storage needs endpoints")
	}
	for _, e := range c.Endpoints {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("etcd endpoint %q is not an http:// or https:// URL", e)
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return errors.New("etcd client certificate and key go together")
	}
	return nil
}

// tlsConfig is the TLS configuration of the files of c; nil when c names none and no
// endpoint is https, so that the connection is plain TCP.
func (c EtcdConfig) tlsConfig() (*tls.Config, error) {
	secure := c.CAFile != "" || c.CertFile != ""
	for _, e := range c.Endpoints {
		if u, err := url.Parse(e); err == nil && u.Scheme == "https" {
			secure = true
		}
	}
	if !secure {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pemBytes, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the etcd CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemBytes) {
			return nil, fmt.Errorf("etcd CA file %s has no PEM certificate", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading the etcd client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// openEtcd connects to the etcd cluster of cfg.Etcd, failing when no member answers,
// and makes /readyz/etcd report its health: a replica that cannot reach etcd stops
// getting traffic from a load balancer, but /livez stays ok, since a restart would not
// bring etcd back.
func (s *Server) openEtcd(ctx context.Context, sch *scheme.Scheme) error {
	c := s.cfg.Etcd
	if err := c.check(); err != nil {
		return fmt.Errorf("widgets server: %w", err)
	}
	tlsConfig, err := c.tlsConfig()
	if err != nil {
		return fmt.Errorf("widgets server: %w", err)
	}
	compaction := c.CompactionInterval
	switch {
	case compaction == 0:
		compaction = etcd.DefaultCompactionInterval
	case compaction < 0:
		compaction = 0
	}
	st, err := etcd.New(ctx, etcd.Options{
		Endpoints:          c.Endpoints,
		Prefix:             c.Prefix,
		TLS:                tlsConfig,
		Codec:              etcd.NewCodec(sch),
		CompactionInterval: compaction,
		Logger:             s.cfg.Logger,
	})
	if err != nil {
		return fmt.Errorf("widgets server: opening storage: %w", err)
	}
	s.store, s.closeStore = st, st.Close
	if !c.NoWatchCache {
		wc, err := cache.Start(ctx, st, cache.Options{})
		if err != nil {
			return errors.Join(fmt.Errorf("widgets server: starting the watch cache: %w", err), st.Close())
		}
		s.store, s.closeStore = wc, func() error { wc.Close(); return st.Close() }
	}
	s.readyChecks = append(s.readyChecks, rest.HealthCheck{Name: "etcd", Check: st.Check})
	s.log.Info("storage opened", "backend", StorageEtcd, "endpoints", c.Endpoints, "prefix", c.Prefix)
	return nil
}
