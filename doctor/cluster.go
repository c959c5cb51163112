package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/source"
)

// checkCluster connects the doctor's sandbox to the configured Dask
// cluster as a session does, through the relay, and says what it found:
// the workers, threads and memory, and the versions on each side.
func checkCluster(ctx context.Context, s *sandbox.Session, c config.Config) Check {
	r := Check{Name: "dask cluster"}
	d, err := source.ParseDask(c.Dask.Spec())
	if err != nil {
		r.State, r.Detail, r.Fix = Failed, err.Error(), "correct --dask, DASK_SCHEDULER_ADDRESS or [dask] in the config"
		return r
	}
	if err := s.JoinCluster(ctx, d); err != nil {
		r.State, r.Detail, r.Fix = Failed, err.Error(), "check the container engine (quarry doctor's sandbox check above)"
		return r
	}
	info, _ := s.ClusterInfo()
	if info.Error != "" {
		r.State, r.Detail = Failed, render.SanitizeLine(info.Error)
		r.Fix = "start the scheduler, or check its address and TLS files; quarry reaches it from this machine, the sandbox only through quarry"
		return r
	}
	r.Detail = clusterWords(info)
	if info.Mismatch != "" {
		r.State, r.Fix = Warning, render.SanitizeLine(info.Mismatch)
	}
	return r
}

// clusterWords is one check's detail: what the cluster has and the
// versions on each side.
func clusterWords(c kernel.Cluster) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d workers, %d threads, %s of worker memory; results up to %s come back",
		render.SanitizeLine(c.Name), c.Workers, c.Threads, kernel.FormatSize(c.Memory), kernel.FormatSize(c.Limit))
	for _, side := range []struct {
		who string
		v   map[string]string
	}{{"sandbox", c.Versions.Sandbox}, {"scheduler", c.Versions.Scheduler}} {
		fmt.Fprintf(&b, "\n%s: %s", side.who, versionsLine(side.v))
	}
	for i, w := range c.Versions.Workers {
		who := "workers"
		if len(c.Versions.Workers) > 1 {
			who = fmt.Sprintf("workers (%d)", i+1)
		}
		fmt.Fprintf(&b, "\n%s: %s", who, versionsLine(w))
	}
	return b.String()
}

func versionsLine(v map[string]string) string {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, render.SanitizeLine(n+" "+strings.TrimSuffix(v[n], ".final.0")))
	}
	return strings.Join(parts, ", ")
}
