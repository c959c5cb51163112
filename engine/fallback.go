package engine

import (
	"regexp"
	"slices"
)

// layoutRefusal matches what an OCI runtime says when it cannot run on the
// host's cgroup layout: crun on a hybrid layout whose v2 hierarchy has
// controllers, or a runtime that wants a hierarchy the host lacks.
var layoutRefusal = regexp.MustCompile(`(?i)cgroups? in hybrid mode not supported|cgroup[^:]*: (not supported|unsupported)|requires cgroup ?v2|cgroup ?v1 .*not supported`)

// LayoutRefusal reports that msg is a runtime refusing the host's cgroup
// layout, which another runtime may not refuse.
func LayoutRefusal(msg string) bool { return layoutRefusal.MatchString(msg) }

// Fallback chooses a runtime to try after the one in use refused the host's
// cgroup layout with msg: runc when the engine offers it (Podman names in
// /info every runtime its configuration knows; Docker those it was given).
// It is kept for every later container of this engine, and RuntimeChoice
// says it and why. It reports false when there is nothing else to try.
func (e *Engine) Fallback(msg string) (string, bool) {
	if !LayoutRefusal(msg) {
		return "", false
	}
	e.loadInfo(nil)
	current := e.Runtime()
	for _, r := range []string{"runc", "crun"} {
		if r == current || !slices.Contains(e.runtimes, r) {
			continue
		}
		e.chosenMu.Lock()
		e.chosen = r
		e.why = current + " refused this host's cgroup layout (" + msg + ")"
		e.chosenMu.Unlock()
		return r, true
	}
	return "", false
}

// RuntimeChoice is the runtime quarry asks for instead of the engine's
// default, and why; both empty when the default runs the sandbox.
func (e *Engine) RuntimeChoice() (runtime, why string) {
	e.chosenMu.Lock()
	defer e.chosenMu.Unlock()
	return e.chosen, e.why
}

// ForgetRuntime drops the runtime Fallback chose, when it did not help.
func (e *Engine) ForgetRuntime() {
	e.chosenMu.Lock()
	defer e.chosenMu.Unlock()
	e.chosen, e.why = "", ""
}
