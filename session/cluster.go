package session

import (
	"context"
	"fmt"
	"sort"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// joinCluster connects the sandbox's kernel to the session's Dask cluster
// and tells the model what it has. A cluster that cannot be reached is a
// warning, not a failed start: the kernel tries again at the next cell
// that uses it.
func (s *Session) joinCluster(ctx context.Context, sb *sandbox.Session) {
	if s.opts.Cluster == nil {
		return
	}
	s.progress("connecting to the Dask cluster " + s.opts.Cluster.Name())
	if err := sb.JoinCluster(ctx, s.opts.Cluster); err != nil {
		s.emit(agent.Event{Kind: agent.EventWarning, Text: s.mask.Mask(err.Error())})
		return
	}
	info, _ := sb.ClusterInfo()
	switch {
	case info.Error != "":
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "dask: " + s.mask.Mask(info.Error)})
	case info.Mismatch != "":
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "dask: " + s.mask.Mask(info.Mismatch)})
	}
	if s.ag == nil {
		return
	}
	p := agent.ClusterPrompt{Text: ClusterText(info), Limit: kernel.FormatSize(info.Limit)}
	if data := s.opts.Config.Dask.Data; len(data) > 0 && info.Error == "" {
		names := make([]string, 0, len(data))
		for n := range data {
			names = append(names, n)
		}
		sort.Strings(names)
		specs := make([]sandbox.DataSpec, len(names))
		for i, n := range names {
			specs[i] = sandbox.DataSpec{Name: n, URL: data[n]}
		}
		s.progress("profiling the cluster's datasets")
		sets, err := sb.ProfileClusterData(ctx, specs, s.opts.Config.Share != config.ShareSchema)
		if err != nil {
			s.emit(agent.Event{Kind: agent.EventWarning, Text: s.mask.Mask(err.Error())})
		}
		for _, d := range sets {
			if d.Error != "" {
				s.emit(agent.Event{Kind: agent.EventWarning, Text: s.mask.Mask("dask dataset " + d.Name + ": the workers could not read it: " + d.Error)})
			}
		}
		p.Datasets = sets
	}
	s.ag.SetCluster(p)
}

// ClusterText says what a cluster has in one line: its name, workers,
// threads and memory (or why it could not be reached).
func ClusterText(c kernel.Cluster) string {
	if c.Error != "" {
		return fmt.Sprintf("%s (not reached yet: %s)", c.Name, c.Error)
	}
	return fmt.Sprintf("%s, %d worker%s, %d thread%s, %s of worker memory", c.Name, c.Workers, plural(c.Workers), c.Threads,
		plural(c.Threads), kernel.FormatSize(c.Memory))
}

// Cluster is what the session's kernel found on its Dask cluster; ok is
// false when the session has none or no sandbox yet.
func (s *Session) Cluster() (kernel.Cluster, bool) {
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	if sb == nil || s.opts.Cluster == nil {
		return kernel.Cluster{}, false
	}
	return sb.ClusterInfo()
}
