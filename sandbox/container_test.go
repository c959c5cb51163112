package sandbox

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
)

func TestContainerOptionsHardened(t *testing.T) {
	e := traits{}
	o := e.containerOptions("abc", "img:1", DefaultLimits)
	h, c := o.HostConfig, o.Config
	if h.NetworkMode != "none" || len(h.CapDrop) != 1 || h.CapDrop[0] != "ALL" || !h.ReadonlyRootfs ||
		h.Init == nil || !*h.Init || h.Memory != h.MemorySwap || *h.PidsLimit != 256 || h.LogConfig.Type != "none" {
		t.Fatalf("host config not hardened: %+v", h)
	}
	if len(h.Binds) != 0 || len(h.Mounts) != 2 || h.Mounts[0].Type != "volume" || h.Mounts[1].Type != "volume" {
		t.Fatalf("mounts: binds %v mounts %+v", h.Binds, h.Mounts)
	}
	if !strings.Contains(h.Tmpfs["/tmp"], "noexec") || h.SecurityOpt[0] != "no-new-privileges" || h.Runtime != "" {
		t.Fatalf("tmpfs %q secopt %v runtime %q", h.Tmpfs["/tmp"], h.SecurityOpt, h.Runtime)
	}
	if c.User != "1000:1000" || c.Labels[engine.LabelSession] != "abc" || c.Labels[engine.LabelPID] == "" || c.Tty {
		t.Fatalf("config %+v", c)
	}
	for _, kv := range c.Env {
		if strings.Contains(strings.ToUpper(kv), "KEY") || strings.Contains(kv, "/root") || strings.Contains(kv, "/home/") {
			t.Fatalf("environment carries %q", kv)
		}
	}
	e.gvisor = true
	if o := e.containerOptions("abc", "img:1", DefaultLimits); o.HostConfig.Runtime != "runsc" {
		t.Fatalf("runsc offered but not used")
	}
}

// Podman takes /output's noexec only in the -v form, sizes its tmpfs in
// pages, and would put unbounded writable tmpfs on /run and /var/tmp.
func TestContainerOptionsPodman(t *testing.T) {
	e := traits{podman: true, page: 4096}
	lim := DefaultLimits
	h := e.containerOptions("abc", "img:1", lim).HostConfig
	if len(h.Binds) != 1 || h.Binds[0] != "quarry-abc-output:/output:noexec,nosuid,nodev" {
		t.Fatalf("binds %v, want the output volume with noexec,nosuid,nodev", h.Binds)
	}
	if len(h.Mounts) != 1 || h.Mounts[0].Target != "/data" {
		t.Fatalf("mounts %+v, want /data only", h.Mounts)
	}
	for _, dir := range []string{"/run", "/var/tmp"} {
		if o := h.Tmpfs[dir]; !strings.HasPrefix(o, "ro,") || !strings.Contains(o, "noexec") || !strings.Contains(o, "size=") {
			t.Errorf("%s tmpfs %q, want read-only, noexec and sized", dir, o)
		}
	}
	nproc := false
	for _, u := range h.Ulimits {
		nproc = nproc || (u.Name == "nproc" && u.Hard == engine.PodmanNproc)
	}
	if !nproc {
		t.Errorf("ulimits %+v lack nproc", h.Ulimits)
	}
	e.gvisor = true
	if h := e.containerOptions("abc", "img:1", lim).HostConfig; h.Runtime != "" {
		t.Errorf("runtime %q: Podman's compat API ignores it; runsc must be Podman's default", h.Runtime)
	}
	for _, page := range []int64{4096, 16384, 65536} {
		e.page = page
		o := e.outputDriverOpts(lim)["o"]
		want := "nr_blocks=" + strconv.FormatInt(lim.OutputSize/page, 10) + ","
		if !strings.HasPrefix(o, want) || strings.Contains(o, "size=") {
			t.Errorf("page %d: output options %q, want %s and no size=", page, o, want)
		}
	}
	if o := (traits{page: 4096}).outputDriverOpts(lim)["o"]; !strings.HasPrefix(o, "size="+strconv.FormatInt(lim.OutputSize, 10)+",") {
		t.Errorf("Docker output options %q, want size= in bytes", o)
	}
}

func TestClassifyExit(t *testing.T) {
	s := &Session{lim: Limits{Memory: 2 << 30}}
	cases := []struct {
		code int
		oom  bool
		kind kernel.ErrorKind
		want string
	}{
		{137, false, kernel.ErrOutOfMemory, "out of memory: the cell needed more than the 2 GiB limit"},
		{0, true, kernel.ErrOutOfMemory, "out of memory"},
		{139, false, kernel.ErrCrashed, "segmentation fault"},
		{3, false, kernel.ErrCrashed, "status 3"},
		{143, false, kernel.ErrCrashed, "signal 15"},
	}
	for _, c := range cases {
		e := s.classifyExit(c.code, c.oom)
		if e.Kind != c.kind || !strings.Contains(e.Message, c.want) || !strings.Contains(e.Message, "variables are lost") {
			t.Errorf("exit %d oom %v: %+v", c.code, c.oom, e)
		}
	}
}

func TestCheckDataName(t *testing.T) {
	for _, ok := range []string{"a.csv", "Données [été] 'q' \"x\".csv", "a b (1).xlsx"} {
		if err := checkDataName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "/", "../q1.csv", "sub/q1.csv", "a\nb.csv", "x\x1b[2J.csv", strings.Repeat("a", 256)} {
		if err := checkDataName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestKernelPayloadLength(t *testing.T) {
	p := kernelPayload(guardCall(DefaultLimits))
	line, src, ok := bytes.Cut(p, []byte("\n"))
	n, err := strconv.Atoi(string(line))
	if !ok || err != nil || n != len(src) {
		t.Fatalf("length line %q for %d bytes", line, len(src))
	}
}

func TestOutputBufCapsOnRuneBoundary(t *testing.T) {
	var o outputBuf
	o.add(strings.Repeat("a", maxHostStream-1))
	got, ok := o.add("é and more")
	if !ok || got != "" || o.dropped != int64(len("é and more")) || len(o.b) != maxHostStream-1 {
		t.Fatalf("got %q ok %v dropped %d len %d", got, ok, o.dropped, len(o.b))
	}
	if _, ok := o.add("x"); !ok {
		// one byte of room left: "x" fits
		t.Fatal("room not used")
	}
	if _, ok := o.add("y"); ok || o.dropped != int64(len("é and more"))+1 {
		t.Fatalf("over the cap: dropped %d", o.dropped)
	}
}
