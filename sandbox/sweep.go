package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// sweep removes containers and volumes whose owning quarry process no
// longer exists, and returns how many objects it removed and the pids of
// their owners. Only objects labelled with this host's name are
// considered, and an object is removed only when its owner pid is provably
// gone: a live process's sandbox is never touched.
func sweep(ctx context.Context, e *engine.Engine) (int, []string, error) {
	host := engine.HostName()
	f := make(client.Filters).Add("label", engine.LabelHost+"="+host).Add("label", engine.LabelSession).Add("label", engine.LabelPID)
	removed := 0
	var errs []error
	var orphans []string // session ids of the orphaned containers removed
	owners := map[string]bool{}

	cs, err := e.Client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return 0, nil, fmt.Errorf("sweep: container list: %w", err)
	}
	for _, c := range cs.Items {
		if !orphaned(c.Labels, host) {
			continue
		}
		if err := e.RemoveContainer(ctx, c.ID); err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		removed++
		owners[c.Labels[engine.LabelPID]] = true
		if id := c.Labels[engine.LabelSession]; validID.MatchString(id) {
			orphans = append(orphans, id)
		}
	}

	vs, err := e.Client().VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		return removed, slices.Sorted(maps.Keys(owners)), errors.Join(append(errs, fmt.Errorf("sweep: volume list: %w", err))...)
	}
	for _, v := range vs.Items {
		if !orphaned(v.Labels, host) {
			continue
		}
		if err := e.RemoveVolume(ctx, v.Name); err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		removed++
		owners[v.Labels[engine.LabelPID]] = true
	}
	// Podman makes a volume missing at create time without the labels
	// asked for: such volumes are found through their container.
	for _, id := range orphans {
		for _, name := range sessionVolumes(id) {
			if _, err := e.Client().VolumeInspect(ctx, name, client.VolumeInspectOptions{}); err != nil {
				continue
			}
			if err := e.RemoveVolume(ctx, name); err != nil {
				errs = append(errs, fmt.Errorf("sweep: %w", err))
				continue
			}
			removed++
		}
	}
	return removed, slices.Sorted(maps.Keys(owners)), errors.Join(errs...)
}

// orphaned reports whether an object's owner was a process on this host
// that has exited. Anything unparsable is left alone.
func orphaned(l map[string]string, host string) bool {
	if l[engine.LabelHost] != host || l[engine.LabelSession] == "" {
		return false
	}
	pid, err := strconv.Atoi(l[engine.LabelPID])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return !processAlive(pid)
}
