package doctor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
)

// noNetworkCell lists the sandbox's network interfaces and routes; a
// networkless container has only lo and no routes.
const noNetworkCell = `import os
try:
    ifaces = sorted(os.listdir('/sys/class/net'))
except OSError:
    ifaces = sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:] if ':' in l)
routes = [l for l in open('/proc/net/route').read().splitlines()[1:] if l.strip()]
print('IFACES=' + ','.join(ifaces))
print('ROUTES=%d' % len(routes))
`

func checkSandbox(ctx context.Context, e *engine.Engine, c config.Config, imageOK bool) (Check, Check, Check) {
	r := Check{Name: "sandbox"}
	lim := Check{Name: "limits", State: Skipped, Detail: "needs a sandbox"}
	dask := Check{Name: "dask cluster", State: Skipped, Detail: "needs a sandbox"}
	if c.Dask.Address == "" {
		dask.Detail = "none set (--dask, DASK_SCHEDULER_ADDRESS or [dask] in the config)"
	}
	if e == nil || !imageOK {
		r.State, r.Detail = Skipped, "needs the engine and the image"
		return r, lim, dask
	}
	out, err := os.MkdirTemp("", "quarry-doctor-")
	if err != nil {
		r.State, r.Detail, r.Fix = Failed, err.Error(), "check that the temporary folder is writable"
		return r, lim, dask
	}
	defer os.RemoveAll(out)
	start := time.Now()
	s, err := sandbox.Start(ctx, e, sandbox.Options{
		Image: c.Image, OutputDir: out, Timeout: 30 * time.Second,
		Limits: sandbox.Limits{Memory: c.Memory, CPUs: c.CPUs},
	})
	if err != nil {
		r.State, r.Detail = Failed, "does not start: "+err.Error()
		r.Fix = engine.Fix(err)
		return r, lim, dask
	}
	defer s.Close()
	lim = checkLimits(s, e)
	started := time.Since(start)
	if c.Dask.Address != "" {
		dask = checkCluster(ctx, s, c) // before the network cell: with the relay up, still only lo
	}
	res, err := s.Exec(ctx, noNetworkCell, nil)
	if err != nil || res.Error != nil {
		if err != nil {
			r.State, r.Detail, r.Fix = Failed, "starts but cannot run a cell: "+err.Error(), engine.Fix(err)
		} else {
			// The kernel answered with a Python error on a cell that needs
			// nothing but the standard library: the image is not quarry's.
			r.State, r.Detail = Failed, "starts but cannot run a cell: "+res.Error.Message
			r.Fix = "rebuild the sandbox image (quarry sandbox build), or unset image to use quarry's own"
		}
		return r, lim, dask
	}
	ifaces, routes := parseNetworkCell(res.Stdout)
	var extra []string
	for _, i := range ifaces {
		if i != "lo" {
			extra = append(extra, i)
		}
	}
	if len(extra) > 0 || routes != 0 || ifaces == nil {
		r.State = Failed
		r.Detail = fmt.Sprintf("HAS A NETWORK: interfaces %s, %d route(s)", strings.Join(ifaces, ","), routes)
		r.Fix = "do not analyse sensitive data until fixed: the container must run with network mode none; report this as a bug"
		return r, lim, dask
	}
	r.Detail = fmt.Sprintf("starts in %s, runs a cell, has no network (interfaces: %s; no routes)", started.Round(100*time.Millisecond), strings.Join(ifaces, ","))
	if rt, why := e.RuntimeChoice(); rt != "" {
		r.Detail += "\nruntime " + rt + ", chosen by quarry: " + why
	}
	return r, lim, dask
}

// checkLimits says which of the session's limits hold, as its container
// measured them: a warning, not a failure, when the engine dropped some.
func checkLimits(s *sandbox.Session, e *engine.Engine) Check {
	r := Check{Name: "limits"}
	en := s.Enforcement()
	ns := "no user namespace: container root is host root, kept out by the capability drop"
	if en.UserNS {
		ns = "user namespace: container root is an ordinary user on the host"
	}
	if w := s.Warnings(); len(w) > 0 {
		r.State = Warning
		r.Detail = strings.Join(w, "\n") + "\n" + ns
		r.Fix = "for hard limits use cgroup v2 (on a systemd host: systemd.unified_cgroup_hierarchy=1 on the kernel command line), or rootful Podman or Docker"
		return r
	}
	r.Detail = en.Summary(s.Limits()) + "; " + ns
	if e.Kind() == engine.Podman && !en.Syscalls {
		r.State, r.Detail = Warning, r.Detail+"\nthe seccomp filter against user namespaces could not be installed: Podman's own profile allows them"
	}
	return r
}

func parseNetworkCell(stdout string) (ifaces []string, routes int) {
	routes = -1
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "IFACES="); ok {
			ifaces = []string{}
			for _, i := range strings.Split(v, ",") {
				if i != "" {
					ifaces = append(ifaces, i)
				}
			}
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ROUTES="); ok {
			fmt.Sscanf(v, "%d", &routes)
		}
	}
	return ifaces, routes
}

func checkModel(ctx context.Context, c config.Config, cfgOK bool) Check {
	r := Check{Name: "model endpoint"}
	if !cfgOK {
		r.State, r.Detail = Skipped, "needs a valid configuration"
		return r
	}
	c, notice, err := config.Resolve(ctx, c)
	if err != nil {
		r.State, r.Detail = Failed, err.Error()
		return r
	}
	if err := config.CheckModel(ctx, c); err != nil {
		r.State, r.Detail = Failed, err.Error()
		r.Fix = "check base_url, the key and the model with quarry config"
		return r
	}
	key := "no key"
	if c.APIKey != "" {
		key = "key from " + c.APIKeySource
	}
	r.Detail = fmt.Sprintf("%s answers and has %s (%s, %s)", c.Endpoint(), c.Model, c.Provider, key)
	if c.Provider == config.ProviderAzure {
		r.Detail = fmt.Sprintf("%s, deployment %s (Azure does not list deployments: not checked)", c.Endpoint(), c.Model)
	}
	if notice != "" {
		r.Detail += "\n" + notice
	}
	return r
}

// checkSharing says what the model is shown of the data and how answers
// arrive; it informs and never fails.
func checkSharing(c config.Config) Check {
	r := Check{Name: "what the model sees"}
	switch c.Share {
	case config.ShareSchema:
		r.Detail = "share = schema (" + c.Source("share") + "): file names, column names and types, row and missing counts; no values. What the model's code prints still reaches it, and it is told to print only aggregates"
	default:
		r.Detail = "share = values (" + c.Source("share") + "): column names, types and counts, 3 example values per column and the first 5 rows; share = \"schema\" sends no values. What the model's code prints reaches it"
	}
	if !c.Stream {
		r.Detail += "\nstream = false (" + c.Source("stream") + "): answers arrive whole, not as they are written"
	}
	return r
}
