package engine

import (
	"context"
	"sync"
)

// A removal the engine did not carry out (it was away: stopped, restarting,
// its connection cut) is owed: the Engine keeps the name and removes it at
// its next create, the first moment the engine answers again for a
// process that goes on (a chat whose next cell rebuilds the sandbox, a
// quarry mcp that runs for weeks). A process that exits first leaves it to
// the next start's sweep.

// maxOwed bounds what is kept: beyond it the sweep is the remedy.
const maxOwed = 1000

type owedRemovals struct {
	mu         sync.Mutex
	containers map[string]bool
	volumes    map[string]bool
}

func (o *owedRemovals) add(volume bool, name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.containers)+len(o.volumes) >= maxOwed {
		return
	}
	m := &o.containers
	if volume {
		m = &o.volumes
	}
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[name] = true
}

// forget drops name: removed after all, or made anew for its new owner.
func (o *owedRemovals) forget(volume bool, name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if volume {
		delete(o.volumes, name)
	} else {
		delete(o.containers, name)
	}
}

// take empties the list: settle puts back what fails again.
func (o *owedRemovals) take() (containers, volumes []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for n := range o.containers {
		containers = append(containers, n)
	}
	for n := range o.volumes {
		volumes = append(volumes, n)
	}
	o.containers, o.volumes = nil, nil
	return containers, volumes
}

// settleOwed carries out the owed removals, containers before the volumes
// they hold, and returns how many went.
func (e *Engine) settleOwed(ctx context.Context) int {
	containers, volumes := e.owed.take()
	done := 0
	for _, c := range containers {
		if e.RemoveContainer(ctx, c) == nil {
			done++
		}
	}
	for _, v := range volumes {
		if e.RemoveVolume(ctx, v) == nil {
			done++
		}
	}
	return done
}
