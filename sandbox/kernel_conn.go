package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/pykernel"
)

// The kernel protocol. The container's command is a tiny bootstrap that
// moves the protocol onto private fds (fd 0 becomes /dev/null, fds 1 and 2
// pipes the kernel drains), reads the kernel source from the host and runs
// it. Host to kernel: one JSON object per line. Kernel to host: frames of a
// 4-byte big-endian length and a JSON object, on the container's stdout.
// Everything from the kernel is untrusted (user code can write to the
// protocol fd): frames are size-capped and a bad frame ends the kernel.

// The kernel's Python lives in package pykernel (pykernel/quarry_kernel/):
// two programs, their files in the order pykernel/parts.txt gives. The
// profiler is sent as PROFILE_SRC; the kernel's parts follow the guard,
// the imports settings (importsPreamble) right before runtime/imports.py.
var kernelParts = pykernel.Program("kernel")

const bootstrap = `import os;i=os.dup(0);o=os.dup(1);n=os.open('/dev/null',os.O_RDONLY);os.dup2(n,0);os.close(n);f=os.fdopen(i,'rb');s=f.read(int(f.readline()));exec(compile(s,'<quarry-kernel>','exec'),{'__name__':'__quarry__','QIN':f,'QOUT':o})`

const (
	maxFrame      = 64 << 20 // figures travel base64 in one frame
	maxStartError = 16 << 10 // container stderr kept for start diagnostics
)

// kernelPayload is what the bootstrap reads: a length line, then the source,
// which starts with the guard (limits.go).
func kernelPayload(guard string) []byte {
	p, _ := json.Marshal(profileSource()) // a JSON string is a valid Python literal
	var src strings.Builder
	src.WriteString(guard + "PROFILE_SRC = " + string(p) + "\n")
	for _, name := range kernelParts {
		if name == pykernel.ImportsPart {
			src.WriteString(importsPreamble())
		}
		src.WriteString(pykernel.Source(name) + "\n")
	}
	s := strings.TrimSuffix(src.String(), "\n")
	return []byte(fmt.Sprintf("%d\n%s", len(s), s))
}

func profileSource() string {
	var parts []string
	for _, name := range pykernel.Program("profile") {
		parts = append(parts, pykernel.Source(name))
	}
	return strings.Join(parts, "\n")
}

// frame is one message from the kernel; T says which fields are set.
type frame struct {
	T       string          `json:"t"`
	ID      int64           `json:"id"`
	Name    string          `json:"name"`
	Text    string          `json:"text"`
	Value   *kernel.Value   `json:"value"`
	Error   *pyError        `json:"error"`
	Figures [][]byte        `json:"figures"` // base64 in JSON
	Inline  [][]byte        `json:"inline"`  // the figures drawn for the front end's box, by index; may be empty
	Files   []string        `json:"files"`
	Dropped int64           `json:"dropped"`
	Notes   []string        `json:"notes"`
	Seconds float64         `json:"seconds"`
	Profile *kernel.Profile `json:"profile"`
	Python  string          `json:"python"`
	Pandas  string          `json:"pandas"`
	Warning string          `json:"warning"`
	Imports float64         `json:"import_seconds"`
	Readers []string        `json:"readers"` // ready: the profile readers the kernel has
	Limits  *limitsReport   `json:"limits"`
	Alive   []int64         `json:"alive"`    // checkpoints the kernel still holds
	At      int64           `json:"at"`       // the checkpoint a restore reached; 0: none was left
	Status  int             `json:"status"`   // died: the kernel's exit status (128+signal when killed)
	RID     int64           `json:"rid"`      // db: the call's id within the cell
	DB      string          `json:"db"`       // db: the source's name
	Query   string          `json:"query"`    // db: the SQL
	MaxRows int64           `json:"max_rows"` // db: the call's row cap; 0 for the source's
	// kind: a file the cell's code holds, as its start and end (kind.go)
	Size   int64  `json:"size"`
	Head   []byte `json:"head"`
	Tail   []byte `json:"tail"`
	TailAt int64  `json:"tail_at"`
	// dask: what the kernel found on the cluster it connected to
	Cluster  *kernel.Cluster      `json:"info"`
	Datasets []kernel.ClusterData `json:"datasets"` // dask_data: the datasets profiled on the cluster
	// progress: tasks done of total on the cluster, for the running cell
	Done  int64 `json:"done"`
	Total int64 `json:"total"`
	// checked: the lines the kernel's IPython rules refuse
	Refusals []kernel.Refusal `json:"refusals"`
	// result: what the cell gave the variance report (report/capture.py)
	Report *kernel.Report `json:"report"`
}

// unsolicited frames come without a request: the kernel is ready, or it
// died and came back at a checkpoint.
func unsolicited(t string) bool { return t == "ready" || t == "died" || t == "revived" }

type pyError struct {
	Type      string        `json:"type"`
	Message   string        `json:"message"`
	Traceback string        `json:"traceback"`
	Needs     *kernel.Needs `json:"needs"`
}

// kconn is one live kernel process: the attached stream of one container
// start. It is replaced, never reused, when the kernel restarts.
type kconn struct {
	hj     client.HijackedResponse
	frames chan frame
	done   chan struct{} // closed when the stream ends; err says why
	err    error
	want   atomic.Int64 // request id frames are accepted for
	stderr engine.LimitedBuffer

	writeMu sync.Mutex
	close   sync.Once
}

func newKconn(hj client.HijackedResponse) *kconn {
	k := &kconn{hj: hj, frames: make(chan frame, 64), done: make(chan struct{})}
	k.stderr.Max = maxStartError
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, &k.stderr, hj.Reader)
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	go k.readFrames(pr)
	return k
}

func (k *kconn) readFrames(r io.Reader) {
	defer close(k.done)
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			k.err = err
			return
		}
		n := binary.BigEndian.Uint32(hdr[:])
		if n > maxFrame {
			k.err = fmt.Errorf("kernel protocol: frame of %s exceeds the %s cap", kernel.FormatSize(int64(n)), kernel.FormatSize(maxFrame))
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			k.err = err
			return
		}
		var f frame
		if err := json.Unmarshal(buf, &f); err != nil {
			k.err = fmt.Errorf("kernel protocol: bad frame: %v", err)
			return
		}
		if !unsolicited(f.T) && f.ID != k.want.Load() {
			continue // late output of a finished cell or a background thread
		}
		k.deliver(f)
	}
}

// deliver blocks while a request is being served (its reader is draining),
// but drops frames once the request they belong to is over.
func (k *kconn) deliver(f frame) {
	for {
		select {
		case k.frames <- f:
			return
		case <-time.After(50 * time.Millisecond):
			if !unsolicited(f.T) && f.ID != k.want.Load() {
				return
			}
		}
	}
}

func (k *kconn) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	k.writeMu.Lock()
	defer k.writeMu.Unlock()
	if _, err := k.hj.Conn.Write(b); err != nil {
		return fmt.Errorf("kernel write: %w", err)
	}
	return nil
}

func (k *kconn) sendRaw(b []byte) error {
	k.writeMu.Lock()
	defer k.writeMu.Unlock()
	_, err := k.hj.Conn.Write(b)
	return err
}

func (k *kconn) dead() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

func (k *kconn) Close() {
	k.close.Do(func() { k.hj.Close() })
}

// outputBuf assembles one stream of a cell on the host. The kernel caps
// output already; this cap holds even if user code forges frames.
type outputBuf struct {
	b       []byte
	dropped int64
}

const maxHostStream = 1 << 20

func (o *outputBuf) add(s string) (string, bool) {
	room := maxHostStream - len(o.b)
	if room <= 0 {
		o.dropped += int64(len(s))
		return "", false
	}
	if len(s) > room {
		p := validPrefix(s, room)
		o.dropped += int64(len(s) - len(p))
		s = p
	}
	o.b = append(o.b, s...)
	return s, true
}
