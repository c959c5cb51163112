package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Each refusal gets the fix for its cause, whether the words come in a
// Refused (attach) or in the client's "Error response from daemon".
func TestFixByCause(t *testing.T) {
	cases := []struct{ said, fix string }{
		{"crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2: OCI runtime error", "cgroup layout"},
		{"write /var/lib/docker/overlay2/x: no space left on device", "free space"},
		{"No such image: quarry-sandbox:abc", "quarry sandbox build"},
		{"quarry-sandbox:abc: image not known", "quarry sandbox build"},
		{"cannot find UID/GID mappings for user quarry-ci", "subordinate ids"},
		{"dial unix /var/run/docker.sock: connect: permission denied", "usermod -aG docker"},
		{`OCI runtime "runsc" not found`, "install the OCI runtime"},
		{"exec /usr/bin/python3: exec format error", "another processor"},
		{`Conflict. The container name "/quarry-abc" is already in use by container "0123"`, "earlier run"},
	}
	for _, c := range cases {
		for _, err := range []error{
			&Refused{Op: "container attach", Status: 409, Message: c.said},
			fmt.Errorf("container create: %w", fmt.Errorf("Error response from daemon: %s", c.said)),
		} {
			fix, ok := KnownFix(err)
			if !ok || !strings.Contains(fix, c.fix) {
				t.Errorf("%q: fix %q, want one about %q", err, fix, c.fix)
			}
			if !strings.Contains(Fix(err), c.fix) {
				t.Errorf("%q: Fix %q", err, Fix(err))
			}
		}
	}
	if fix, ok := KnownFix(errors.New("Error response from daemon: something new")); ok {
		t.Errorf("an unknown refusal got the fix %q", fix)
	}
	if !strings.Contains(Fix(errors.New("something new")), "engine's own words") {
		t.Errorf("an unknown refusal got no general advice")
	}
	if fix, _ := KnownFix(fmt.Errorf("x: %w", context.DeadlineExceeded)); !strings.Contains(fix, "in time") {
		t.Errorf("deadline: %q", fix)
	}
	if fix, _ := KnownFix(fmt.Errorf("%w: dial", ErrUnreachable)); !strings.Contains(fix, "start the engine") {
		t.Errorf("unreachable: %q", fix)
	}
}

func TestEngineMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"cause":"x","message":"preparing container for attach: crun: no\n go","response":409}`: "preparing container for attach: crun: no go",
		"plain words\n": "plain words",
	} {
		if got := engineMessage([]byte(body)); got != want {
			t.Errorf("engineMessage(%q) = %q, want %q", body, got, want)
		}
	}
}
