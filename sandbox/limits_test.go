package sandbox

import (
	"strings"
	"testing"
)

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// The guard's report decides what a session claims: a limit counts as held
// only as far as the container saw it.
func TestEnforcementFromReport(t *testing.T) {
	lim := DefaultLimits
	var held limitsReport
	held.Cgroup.Memory, held.Cgroup.PIDs, held.Cgroup.CPUs = i64(lim.Memory), i64(lim.PIDs), f64(lim.CPUs)
	en := held.enforcement(lim)
	if en.Memory != LimitCgroup || en.PIDs != LimitCgroup || en.CPU != LimitCgroup {
		t.Fatalf("all cgroup limits seen: %+v", en)
	}
	if w := en.Warnings(lim); len(w) != 0 {
		t.Fatalf("warnings %q with every limit held", w)
	}

	var dropped limitsReport // rootless Podman on cgroup v1: unlimited cgroups
	dropped.Cgroup.Memory = i64(9223372036854771712)
	dropped.Rlimits = map[string]int64{"RLIMIT_DATA": lim.Memory, "RLIMIT_NPROC": lim.PIDs}
	en = dropped.enforcement(lim)
	if en.Memory != LimitPerProcess || en.PIDs != LimitPerUser || en.CPU != LimitNone {
		t.Fatalf("dropped limits with rlimit fallbacks: %+v", en)
	}
	w := strings.Join(en.Warnings(lim), "\n")
	for _, want := range []string{"memory: no 2 GiB limit for the sandbox as a whole", "several together are not",
		"processes:", "RLIMIT_NPROC caps all sandboxes of this user together at 256", "CPU: the 2-core limit is not enforced"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}

	var none limitsReport // neither cgroup nor fallback took
	en = none.enforcement(lim)
	if en.Memory != LimitNone || en.PIDs != LimitNone || !strings.Contains(strings.Join(en.Warnings(lim), "\n"), "is not enforced") {
		t.Fatalf("nothing held: %+v %q", en, en.Warnings(lim))
	}

	var loose limitsReport // a cgroup limit above the one asked for is not the limit
	loose.Cgroup.Memory, loose.Cgroup.PIDs = i64(2*lim.Memory), i64(2*lim.PIDs)
	if en := loose.enforcement(lim); en.Memory == LimitCgroup || en.PIDs == LimitCgroup {
		t.Fatalf("looser cgroup limits counted as held: %+v", en)
	}
	if w := (Enforcement{}).Warnings(lim); w != nil {
		t.Fatalf("an unmeasured session warns %q", w)
	}
}

func TestGuardCallCarriesLimits(t *testing.T) {
	g := guardCall(Limits{Memory: 384 << 20, PIDs: 64, OutputSize: 16 << 20})
	for _, want := range []string{`"memory":402653184`, `"pids":64`, `"nofile":1024`, `"fsize":1073741824`, "_quarry_guard(", "del _quarry_guard"} {
		if !strings.Contains(g, want) {
			t.Errorf("guard call lacks %s", want)
		}
	}
}
