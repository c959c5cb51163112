package sandbox

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

func TestContainerOptionsHardened(t *testing.T) {
	e := &Engine{}
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
	if c.User != "1000:1000" || c.Labels[labelSession] != "abc" || c.Labels[labelPID] == "" || c.Tty {
		t.Fatalf("config %+v", c)
	}
	for _, kv := range c.Env {
		if strings.Contains(strings.ToUpper(kv), "KEY") || strings.Contains(kv, "/root") || strings.Contains(kv, "/home/") {
			t.Fatalf("environment carries %q", kv)
		}
	}
	e.runtime = "runsc"
	if o := e.containerOptions("abc", "img:1", DefaultLimits); o.HostConfig.Runtime != "runsc" {
		t.Fatalf("runsc offered but not used")
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
	for _, bad := range []string{"", ".", "..", "a\nb.csv", "x\x1b[2J.csv", strings.Repeat("a", 256)} {
		if err := checkDataName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestKernelPayloadLength(t *testing.T) {
	p := kernelPayload()
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
