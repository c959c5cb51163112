package sandbox

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// Cluster is a Dask scheduler the host reaches. The sandbox has no network:
// the kernel's client connects to a relay on the sandbox's loopback
// (cluster_relay.go), and each of its connections becomes one Dial here.
// The sandbox never names where a connection goes, so it reaches this
// scheduler and nothing else. The sandbox knows nothing of addresses or
// certificates; the session gives it one (package source).
type Cluster interface {
	// Dial opens one connection to the scheduler (TLS already spoken when
	// the cluster wants it). Its error's text is shown to the model: it
	// must hold no credential.
	Dial(ctx context.Context) (net.Conn, error)
	// Name is the cluster as records and prompts call it, without credentials.
	Name() string
	// MaxResult is how many bytes one compute may bring back into the
	// sandbox; 0 means no limit.
	MaxResult() int64
}

// relayPort is where the kernel's client finds the relay, on the sandbox's
// own loopback (a network namespace of its own: no other process sees it).
const relayPort = 8786

// clusterConnectTimeout bounds the kernel's first connection through the relay.
const clusterConnectTimeout = 30 * time.Second

// joinCluster starts the relay and has the kernel connect, after each
// kernel start: a restart kills the container's processes, the relay too.
// The scheduler being away is no failure of the start: the kernel says so
// and tries again at the next cell that uses the cluster.
func (s *Session) joinCluster(ctx context.Context) error {
	if s.opts.Cluster == nil {
		return nil
	}
	if s.relay != nil {
		s.relay.Close()
		s.relay = nil
	}
	r, err := startRelay(ctx, s.e, s.cid, s.opts.Cluster)
	if err != nil {
		return fmt.Errorf("dask relay: %w", err)
	}
	s.relay = r
	rctx, cancel := context.WithTimeout(ctx, clusterConnectTimeout)
	defer cancel()
	f, err := s.askCluster(rctx, map[string]any{
		"op": "dask", "port": relayPort, "name": s.opts.Cluster.Name(), "limit": s.opts.Cluster.MaxResult(),
		"session": s.id, "relay_pid": r.pid,
	}, "dask")
	if err != nil {
		return fmt.Errorf("dask connect: %w", err)
	}
	c := kernel.Cluster{Name: s.opts.Cluster.Name(), Limit: s.opts.Cluster.MaxResult()}
	if f.Cluster != nil {
		c = *f.Cluster
		c.Name = s.opts.Cluster.Name() // the host's name, not the kernel's word for it
	}
	if f.Text != "" {
		c.Error = f.Text
	}
	s.clusterMu.Lock()
	s.cluster = c
	s.clusterMu.Unlock()
	return nil
}

// askCluster is the kernel's "dask" request. Unlike the other requests its
// timeout does not replace the kernel: it runs within every kernel start,
// and the kernel bounds its own wait for the scheduler.
func (s *Session) askCluster(ctx context.Context, msg map[string]any, answer string) (frame, error) {
	k, id, err := s.send(msg)
	if err != nil {
		return frame{}, err
	}
	defer k.want.Store(0)
	for {
		select {
		case f := <-k.frames:
			if f.ID == id && f.T == answer {
				return f, nil
			}
		case <-k.done:
			return frame{}, errKernelGone
		case <-ctx.Done():
			return frame{}, fmt.Errorf("the kernel did not finish connecting: %w", ctx.Err())
		}
	}
}

// ensureRelay starts the relay again when something in the sandbox killed
// it; the kernel's client then reconnects at its next cell.
func (s *Session) ensureRelay(ctx context.Context) {
	if s.opts.Cluster == nil || s.relay == nil || !s.relay.dead() {
		return
	}
	if err := s.joinCluster(ctx); err != nil {
		s.clusterMu.Lock()
		s.cluster.Error = err.Error()
		s.clusterMu.Unlock()
	}
}

// ClusterInfo is what the kernel found on the Dask cluster at its last
// connection; ok is false when the session has no cluster.
func (s *Session) ClusterInfo() (kernel.Cluster, bool) {
	if s.opts.Cluster == nil {
		return kernel.Cluster{}, false
	}
	s.clusterMu.Lock()
	defer s.clusterMu.Unlock()
	return s.cluster, true
}

// JoinCluster connects the kernel to c, now and after every kernel start.
func (s *Session) JoinCluster(ctx context.Context, c Cluster) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.opts.Cluster = c
	return s.joinCluster(ctx)
}

// DataSpec names a dataset the cluster's workers read: a folder, a file or
// a glob of Parquet or CSV files, as a path or URL the workers see.
type DataSpec struct {
	Name, URL string
}

// ProfileClusterData has a worker profile each dataset where it is read:
// its dtypes, partitions, row count where the metadata has it, and (with
// examples) a few rows of its first partition.
func (s *Session) ProfileClusterData(ctx context.Context, sets []DataSpec, examples bool) ([]kernel.ClusterData, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	list := make([]map[string]string, len(sets))
	for i, d := range sets {
		list[i] = map[string]string{"name": d.Name, "url": d.URL}
	}
	rctx, cancel := context.WithTimeout(ctx, time.Duration(len(sets)+1)*clusterConnectTimeout)
	defer cancel()
	f, err := s.askCluster(rctx, map[string]any{"op": "dask_data", "datasets": list, "examples": examples}, "dask_data")
	if err != nil {
		return nil, fmt.Errorf("dask data: %w", err)
	}
	return f.Datasets, nil
}
