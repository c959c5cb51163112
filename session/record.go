package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
)

// RecordName is the session record's file in the session folder, next to
// the figures and files it names.
const RecordName = "session.jsonl"

// RecordVersion is the format this quarry writes; Load reads it and every
// earlier one (0 is the transcript.jsonl of quarry before records).
const RecordVersion = 1

// The record is one JSON object per line, appended and synced as the
// session goes, so a kill loses at most the cell that was running. It
// holds what showing, resuming, exporting and rerunning a session need,
// already masked: never the API key, never a copy of an input file.

// EntryKind says what a record line holds.
type EntryKind string

const (
	EntrySession  EntryKind = "session"  // the header: V, ID, Model, Settings (and Source for a rerun)
	EntryResume   EntryKind = "resume"   // a later quarry process continued the session: Settings
	EntryInput    EntryKind = "input"    // Input: a file attached (a later one of the same name replaces it)
	EntryQuestion EntryKind = "question" // Text: a question starts a turn
	EntryCell     EntryKind = "cell"     // Cell: a cell that finished, either way
	EntryAnswer   EntryKind = "answer"   // Text (Markdown), Usage, ToolMode, Numbers: the turn's answer
	EntryError    EntryKind = "error"    // Text: the turn failed
	EntryWarning  EntryKind = "warning"  // Text
	EntryModel    EntryKind = "model"    // Model: switched for the following turns
	EntryReset    EntryKind = "reset"    // a fresh kernel; the conversation starts over
	EntryUndo     EntryKind = "undo"     // Text: the question of the turn taken back
	EntryExtras   EntryKind = "extras"   // Extras: the sandbox moved to an image with these extras (packages added mid-session)
)

// Entry is one line of the record.
type Entry struct {
	Kind     EntryKind     `json:"kind"`
	V        int           `json:"v,omitempty"`
	Time     time.Time     `json:"time"`
	ID       string        `json:"id,omitempty"`
	Model    string        `json:"model,omitempty"`
	Source   string        `json:"source,omitempty"`
	Settings *Settings     `json:"settings,omitempty"`
	Text     string        `json:"text,omitempty"`
	Input    *Input        `json:"input,omitempty"`
	Cell     *Cell         `json:"cell,omitempty"`
	Usage    *agent.Tokens `json:"usage,omitempty"`
	ToolMode string        `json:"tool_mode,omitempty"`
	// Numbers are an answer's numbers, checked against the cells' outputs.
	Numbers []ground.Claim `json:"numbers,omitempty"`
	// Extras are the Debian packages added to the sandbox's image.
	Extras []RecordedExtra `json:"extras,omitempty"`
}

// Settings are the settings a session ran with that matter to rerun or
// judge it; the endpoint is shown with its credentials hidden.
type Settings struct {
	Endpoint string        `json:"endpoint,omitempty"`
	ToolMode string        `json:"tool_mode,omitempty"`
	MaxSteps int           `json:"max_steps,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	Memory   int64         `json:"memory,omitempty"`
	CPUs     float64       `json:"cpus,omitempty"`
	Image    string        `json:"image,omitempty"`
	Build    string        `json:"quarry,omitempty"` // quarry's version
	// Thousands groups the digits of numbers in tables, as the chat showed
	// them; exports show them the same way.
	Thousands bool `json:"thousands,omitempty"`
	// Sources are the databases sql(db=NAME) reached, as NAME and
	// user@host/db: never a credential. Exports write them as placeholders.
	Sources []RecordedSource `json:"sources,omitempty"`
	// Extras are the Debian packages added to the sandbox image (quarry
	// sandbox add), as asked for: a rerun elsewhere needs them too.
	Extras []RecordedExtra `json:"extras,omitempty"`
	// Dask is the Dask cluster the cells reached, by name (scheme, host and
	// port): never a credential. quarry rerun --dask points it elsewhere.
	Dask string `json:"dask,omitempty"`
}

// RecordedExtra is a package added to the sandbox image, at the version
// the session used.
type RecordedExtra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// RecordedSource is a connected database as the record keeps it.
type RecordedSource struct {
	Name  string `json:"name"`
	Where string `json:"where"`
	Kind  string `json:"kind,omitempty"` // the kind's URL scheme (postgres, mysql); none before MariaDB
}

// Input is a file attached to the session: its name under /data, where it
// came from on the host and what it held then.
type Input struct {
	Name    string          `json:"name"`
	Path    string          `json:"path"` // absolute host path when attached
	Size    int64           `json:"size"`
	SHA256  string          `json:"sha256,omitempty"`
	Profile *kernel.Profile `json:"profile,omitempty"`
	// Changes say how a rerun's file differs from the one it replaces
	// (columns missing or new, types changed).
	Changes []string `json:"changes,omitempty"`
}

// CellStatus is how a cell ended.
type CellStatus string

const (
	CellOK        CellStatus = "ok"
	CellFailed    CellStatus = "failed"
	CellCancelled CellStatus = "cancelled"
)

// Cell is one finished cell. Figures and files in Result are named
// relative to the session folder (Name); Path is filled in on load.
type Cell struct {
	Num    int           `json:"n"`
	Code   string        `json:"code"`
	Status CellStatus    `json:"status"`
	Result kernel.Result `json:"result"`
}

// statusOf tells how a cell ended from its result.
func statusOf(r kernel.Result) CellStatus {
	switch {
	case r.Error == nil:
		return CellOK
	case r.Error.Kind == kernel.ErrInterrupted:
		return CellCancelled
	}
	return CellFailed
}

// recorder appends entries to the record, each synced before the next, so
// what was written survives a kill. A nil *recorder discards everything;
// after the first write error the rest is skipped (the session goes on).
type recorder struct {
	mu    sync.Mutex
	f     *os.File
	mask  *secret.Masker
	err   error
	usage *agent.Tokens // the running turn's, for its answer entry
	// worked is set once a question or a cell is recorded: a session
	// closed without either is not worth keeping.
	worked bool
}

// errInUse: another quarry process has the session open.
var errInUse = errors.New("the session is open in another quarry process: quit it there first")

// createRecord starts a new record at path; it must not exist.
func createRecord(path string, mask *secret.Masker) (*recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session record: %w", err)
	}
	if err := lockRecord(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("session record %s: %w", path, err)
	}
	return &recorder{f: f, mask: mask}, nil
}

// InUse tells whether another quarry process has the session open (its
// record is locked while a session runs).
func (rec *Record) InUse() bool {
	f, err := os.Open(filepath.Join(rec.Dir, RecordName))
	if err != nil {
		return false
	}
	defer f.Close()
	return lockRecord(f) == errInUse
}

// appendRecord continues an existing record. A torn last line (quarry was
// killed while writing it) is ended first, so the next entry starts on a
// line of its own; the reader skips the torn one.
func appendRecord(path string, mask *secret.Masker) (*recorder, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session record: %w", err)
	}
	if err := lockRecord(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("session record %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				f.Close()
				return nil, fmt.Errorf("session record: %w", err)
			}
		}
	}
	return &recorder{f: f, mask: mask}, nil
}

// add writes one entry and syncs it. Text fields the session made itself
// (questions, paths) are masked here; events arrive masked.
func (r *recorder) add(e Entry) {
	if r == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil || r.err != nil {
		return
	}
	if _, r.err = r.f.Write(line); r.err == nil {
		r.err = r.f.Sync()
	}
}

func (r *recorder) header(id, model, source string, st Settings) {
	r.add(Entry{Kind: EntrySession, V: RecordVersion, ID: id, Model: model, Source: source, Settings: &st})
}

func (r *recorder) question(text string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.usage, r.worked = nil, true
	r.mu.Unlock()
	r.add(Entry{Kind: EntryQuestion, Text: r.mask.Mask(text)})
}

func (r *recorder) input(in Input) {
	if r == nil {
		return
	}
	in.Path = r.mask.Mask(in.Path)
	r.add(Entry{Kind: EntryInput, Input: &in})
}

// cell records a finished cell; figure and file paths are kept relative to
// the session folder, so the folder can move.
func (r *recorder) cell(num int, code string, res kernel.Result, t time.Time) {
	res.Figures = relativeFiles(res.Figures)
	res.Files = relativeFiles(res.Files)
	r.mu.Lock()
	r.worked = true
	r.mu.Unlock()
	r.add(Entry{Kind: EntryCell, Time: t, Cell: &Cell{Num: num, Code: code, Status: statusOf(res), Result: res}})
}

func relativeFiles(fs []kernel.File) []kernel.File {
	if fs == nil {
		return nil
	}
	out := make([]kernel.File, len(fs))
	for i, f := range fs {
		f.Path, f.PNG = "", nil
		out[i] = f
	}
	return out
}

// event takes what the record keeps from the session's event stream: each
// finished cell, the answer with the turn's usage, failures, warnings and
// undone turns. Deltas, output chunks and start-up steps are not kept: the
// cell's result and the answer hold them whole.
func (r *recorder) event(e agent.Event, toolMode string) {
	if r == nil {
		return
	}
	switch e.Kind {
	case agent.EventCellDone:
		if e.Result != nil {
			r.cell(e.Cell, e.Code, *e.Result, e.Time)
		}
	case agent.EventUsage:
		if e.Usage != nil {
			u := e.Usage.Turn
			r.mu.Lock()
			r.usage = &u
			r.mu.Unlock()
		}
	case agent.EventTurnDone:
		r.mu.Lock()
		u := r.usage
		r.mu.Unlock()
		mode := ""
		if toolMode == "markdown" {
			mode = toolMode
		}
		r.add(Entry{Kind: EntryAnswer, Time: e.Time, Text: e.Text, Usage: u, ToolMode: mode, Numbers: e.Numbers})
	case agent.EventError:
		r.add(Entry{Kind: EntryError, Time: e.Time, Text: e.Text})
	case agent.EventWarning, agent.EventRevise:
		r.add(Entry{Kind: EntryWarning, Time: e.Time, Text: e.Text})
	case agent.EventUndo:
		r.add(Entry{Kind: EntryUndo, Time: e.Time, Text: e.Text})
	}
}

func (r *recorder) hasWork() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.worked
}

// Close closes the file; safe on nil and twice.
func (r *recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	if r.err != nil {
		return errors.Join(fmt.Errorf("session record: %w", r.err), err)
	}
	return err
}
