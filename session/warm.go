package session

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
)

// Warm sandboxes for repeated quarry -p runs. A run ends with its
// process, so the sandboxes started ahead live in a holder process of
// their own (quarry sandbox warm, warm_serve.go), found at a Unix socket
// named after what makes two runs' sandboxes interchangeable (WarmSpec).
// A run takes one over the socket: the holder releases it (detaches from
// its kernel) and the run adopts it (attaches), so the run owns it from
// then on. The run keeps the connection open for as long as it uses the
// sandbox; when it closes, however the run ended (kill -9 included), the
// holder removes the sandbox if the run did not. Each is handed out once;
// nothing of one run reaches another.

// WarmSpec is what makes two runs' sandboxes interchangeable.
type WarmSpec struct {
	Image  string  `json:"image"`  // "" for the recipe's current image
	Memory int64   `json:"memory"` // bytes; 0 for the default
	CPUs   float64 `json:"cpus"`
	Recipe string  `json:"recipe"` // another quarry's recipe is another image and protocol
	Engine string  `json:"engine"` // DOCKER_HOST as the run saw it
}

// SpecOf is the warm spec of sandboxes for configuration c.
func SpecOf(c config.Config) WarmSpec {
	return WarmSpec{Image: c.Image, Memory: c.Memory, CPUs: c.CPUs, Recipe: image.RecipeHash(), Engine: os.Getenv("DOCKER_HOST")}
}

// config is the holder's configuration for sandboxes of spec w.
func (w WarmSpec) config(outDir string) config.Config {
	return config.Config{Image: w.Image, Memory: w.Memory, CPUs: w.CPUs, OutputDir: outDir}
}

// socket is where the holder of w's sandboxes listens, in a folder only
// this user may enter.
func (w WarmSpec) socket() (string, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "quarry-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("warm pool: %w", err)
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	b, _ := json.Marshal(w)
	sum := sha256.Sum256(b)
	return filepath.Join(dir, "warm-"+hex.EncodeToString(sum[:8])+".sock"), nil
}

// warmMsg is one line of the holder's protocol, either way.
type warmMsg struct {
	Op      string           `json:"op,omitempty"` // take, stale, quit
	Spec    *WarmSpec        `json:"spec,omitempty"`
	Handoff *sandbox.Handoff `json:"handoff,omitempty"`
	Engine  string           `json:"engine,omitempty"` // the holder engine's host
	None    string           `json:"none,omitempty"`   // why no sandbox was handed out
}

// Warm is a sandbox taken from a holder, for one session
// (Options.Pooled through Pooled).
type Warm struct {
	h      sandbox.Handoff
	engine string
	conn   net.Conn
}

// takeTimeout bounds the exchange with a holder: one that does not answer
// at once is as good as none.
const takeTimeout = 2 * time.Second

// TakeWarm asks the holder of spec's sandboxes for one. It returns nil
// and no error when no holder runs (ErrNoHolder) or none is ready.
func TakeWarm(ctx context.Context, spec WarmSpec) (*Warm, error) {
	path, err := spec.socket()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, takeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, ErrNoHolder
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if err := writeMsg(conn, warmMsg{Op: "take", Spec: &spec}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("warm pool: %w", err)
	}
	var m warmMsg
	if err := readMsg(bufio.NewReader(conn), &m); err != nil {
		conn.Close()
		return nil, fmt.Errorf("warm pool: the holder did not answer: %w", err)
	}
	if m.Handoff == nil {
		conn.Close()
		return nil, nil
	}
	if !stop() {
		conn.Close()
		return nil, fmt.Errorf("warm pool: %w", ctx.Err())
	}
	conn.SetDeadline(time.Time{})
	return &Warm{h: *m.Handoff, engine: m.Engine, conn: conn}, nil
}

// ErrNoHolder: no holder listens for this spec.
var ErrNoHolder = errors.New("warm pool: no holder runs")

// Pooled makes w the sandbox of a new session (Options.Pooled).
func (w *Warm) Pooled() *Pooled {
	return &Pooled{id: w.h.ID, warm: w, image: image.Derived{Ref: w.h.Image}}
}

// Stale tells the holder its sandboxes are of another image than the
// run's (rebuilt since): it stops, and the next run starts a new one.
func (w *Warm) Stale() {
	writeMsg(w.conn, warmMsg{Op: "stale"})
}

// Close ends the run's hold: the holder removes the sandbox if the run
// did not.
func (w *Warm) Close() error {
	if w == nil || w.conn == nil {
		return nil
	}
	return w.conn.Close()
}

// adopt attaches to the taken sandbox on e, into folder dir.
func (w *Warm) adopt(ctx context.Context, e *engine.Engine, opts sandbox.Options) (*sandbox.Session, error) {
	if w.engine != e.Host() {
		return nil, fmt.Errorf("warm pool: the holder's engine is %s, this run's %s", w.engine, e.Host())
	}
	return sandbox.Adopt(ctx, e, w.h, opts)
}

// StopWarm asks the holder of spec's sandboxes to stop: it removes those
// it holds and exits once the runs using one are done. It reports whether
// one was running.
func StopWarm(ctx context.Context, spec WarmSpec) (bool, error) {
	path, err := spec.socket()
	if err != nil {
		return false, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return false, nil
	}
	defer conn.Close()
	return true, writeMsg(conn, warmMsg{Op: "quit"})
}

func writeMsg(c net.Conn, m warmMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// maxWarmLine caps a protocol line: a handoff is a few kilobytes.
const maxWarmLine = 1 << 20

func readMsg(r *bufio.Reader, m *warmMsg) error {
	var line []byte
	for {
		part, more, err := r.ReadLine()
		if err != nil {
			return err
		}
		line = append(line, part...)
		if len(line) > maxWarmLine {
			return errors.New("line too long")
		}
		if !more {
			break
		}
	}
	return json.Unmarshal(line, m)
}
