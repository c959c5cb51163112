package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A kernel that dies while the question has a checkpoint comes back at it,
// in the same container: earlier variables, /tmp and the other checkpoints
// stay; what the question made is gone, processes it started too.
func TestKernelDeathComesBackAtCheckpoint(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 60 * time.Second, Limits: sandbox.Limits{Memory: 256 << 20}})
	cellOK(t, cell(t, s, "kept = 1\nopen('/tmp/marker', 'w').write('container lives')"))
	cp := checkpoint(t, s)
	for _, c := range []struct {
		name, code string
		kind       kernel.ErrorKind
		says       string
	}{
		{"oom", "a = []\nwhile True:\n    a.append(b'x' * (16 << 20))", kernel.ErrOutOfMemory, "out of memory: the cell needed more than the 256 MiB limit"},
		{"exit", "import os\nos._exit(3)", kernel.ErrCrashed, "status 3"},
		{"segfault", "import ctypes\nctypes.string_at(0)", kernel.ErrCrashed, "segmentation fault"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.kind == kernel.ErrOutOfMemory && s.Enforcement().Memory != sandbox.LimitCgroup {
				t.Skip("no memory cgroup on this engine: the per-process cap makes the bomb a MemoryError, and the kernel lives")
			}
			cellOK(t, cell(t, s, "made = 2\nimport subprocess\nchild = subprocess.Popen(['sleep', '600'])"))
			res := cell(t, s, c.code)
			if res.Error == nil || res.Error.Kind != c.kind || !res.Rewound || res.StateLost {
				t.Fatalf("result %+v error %+v", res, res.Error)
			}
			if !strings.Contains(res.Error.Message, c.says) || !strings.Contains(res.Error.Message, "earlier questions are kept") {
				t.Errorf("message %q", res.Error.Message)
			}
			got := value(t, s, psMarked+"kept, 'made' in globals(), open('/tmp/marker').read(), len(marked('sleep 6' + '00'))")
			if got != "(1, False, 'container lives', 0)" {
				t.Errorf("after coming back: %s (want earlier variables, no later ones, the same container, no leftover process)", got)
			}
		})
	}
	// The checkpoint is still there for an undo.
	if r := rewind(t, s, cp); r.At != cp {
		t.Errorf("rewind after the deaths reached %+v, want %+v", r.At, cp)
	}
}

func TestKernelDeathBetweenCellsComesBack(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cellOK(t, cell(t, s, "kept = 1"))
	checkpoint(t, s)
	cellOK(t, cell(t, s, "made = 2\nimport os, threading, time\nthreading.Thread(target=lambda: (time.sleep(0.3), os._exit(5))).start()"))
	time.Sleep(time.Second)
	res := cell(t, s, "kept, 'made' in globals()")
	if !res.Rewound || res.Value == nil || res.Value.Repr != "(1, False)" {
		t.Fatalf("after a death between cells: %+v value %+v", res, res.Value)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "status 5") {
		t.Errorf("notes %q", res.Notes)
	}
}

// A cell that ignores the interrupt costs the question's work, not the
// session's: the supervisor kills the kernel and the checkpoint takes over.
func TestStuckCellComesBackAtCheckpoint(t *testing.T) {
	defer sandbox.SetInterruptGrace(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	cellOK(t, cell(t, s, "kept = 1\nopen('/tmp/marker', 'w').write('container lives')"))
	checkpoint(t, s)
	res := cell(t, s, "made = 2\nimport signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass")
	if res.Error == nil || res.Error.Kind != kernel.ErrTimeout || !res.Rewound || res.StateLost {
		t.Fatalf("result %+v error %+v", res, res.Error)
	}
	if !strings.Contains(res.Error.Message, "did not stop when interrupted") || !strings.Contains(res.Error.Message, "earlier questions are kept") {
		t.Errorf("message %q", res.Error.Message)
	}
	if got := value(t, s, "kept, 'made' in globals(), open('/tmp/marker').read()"); got != "(1, False, 'container lives')" {
		t.Errorf("after the stuck cell: %s", got)
	}
}
