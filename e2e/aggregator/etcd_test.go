package aggregator

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdStartTimeout bounds how long a single-member etcd may take to elect itself.
const etcdStartTimeout = 60 * time.Second

// embeddedEtcd is a single-member etcd inside the test process, on loopback ports the
// kernel picks, with its data in a temporary directory: the aggregator's storage, as
// kube-apiserver's etcd is.
type embeddedEtcd struct {
	etcd *embed.Etcd
	dir  string
	// ClientURL is http://127.0.0.1:PORT.
	ClientURL string
}

func startEtcd() (_ *embeddedEtcd, err error) {
	dir, err := os.MkdirTemp("", "apikit-aggregator-etcd-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	cfg := embed.NewConfig()
	cfg.Name = "aggregator-test"
	cfg.Dir = dir
	// A test's data need not survive a crash; fsync would only slow the disk others share.
	cfg.UnsafeNoFsync = true
	// Port 0 everywhere: parallel test binaries never race for a port. The peer URL is never
	// dialled by a single member.
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{loopback}, []url.URL{loopback}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{loopback}, []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	logger := zap.NewNop()
	if verboseLogs() {
		if logger, err = zap.NewDevelopment(); err != nil {
			return nil, err
		}
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd failed: %w", err)
	case <-time.After(etcdStartTimeout):
		e.Close()
		return nil, fmt.Errorf("etcd not ready within %s", etcdStartTimeout)
	}
	if len(e.Clients) == 0 {
		e.Close()
		return nil, errors.New("etcd has no client listener")
	}
	return &embeddedEtcd{etcd: e, dir: dir, ClientURL: "http://" + e.Clients[0].Addr().String()}, nil
}

// Stop stops etcd and removes its data.
func (e *embeddedEtcd) Stop() error {
	e.etcd.Close()
	return os.RemoveAll(e.dir)
}
