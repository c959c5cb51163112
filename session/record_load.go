package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// Record is a session as its record tells it. Its text comes from the
// model and the sandbox: untrusted, to be sanitized or escaped by whoever
// shows it.
type Record struct {
	Dir      string // the session folder (absolute)
	Version  int
	ID       string
	Started  time.Time
	Model    string // the model of the latest turns
	Settings Settings
	Source   string // a rerun's: the session id or notebook it reran
	Entries  []Entry
	// Skipped counts lines that could not be read: a torn last line from a
	// kill, or damage; the rest of the record still loads.
	Skipped int
}

// transcriptName is the file quarry wrote before records (version 0).
const transcriptName = "transcript.jsonl"

// LoadRecord reads the record in a session folder.
func LoadRecord(dir string) (*Record, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("session folder %s: %w", dir, err)
	}
	f, err := os.Open(filepath.Join(abs, RecordName))
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(abs, transcriptName))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no session record (%s): is it a quarry session folder?", abs, RecordName)
	}
	if err != nil {
		return nil, fmt.Errorf("session record: %w", err)
	}
	defer f.Close()
	return readRecord(f, abs)
}

// readRecord parses a record (or a version 0 transcript); lines that do not
// parse are skipped and counted.
func readRecord(r io.Reader, dir string) (*Record, error) {
	rec := &Record{Dir: dir}
	br := bufio.NewReaderSize(r, 64<<10)
	v0 := false
	var usage *agent.Tokens // version 0: the turn's latest usage
	first := true
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if first {
				first = false
				v0 = isTranscript(line)
			}
			var e Entry
			var ok bool
			if v0 {
				e, ok = transcriptEntry(line, &usage)
			} else if ok = json.Unmarshal(line, &e) == nil && e.Kind != ""; !ok {
				e = Entry{}
			}
			switch {
			case !ok && e.Kind == "":
				rec.Skipped++
			case ok:
				rec.add(e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("session record: %w", err)
		}
	}
	if rec.ID == "" {
		return nil, fmt.Errorf("session record in %s: no header line: the file is damaged or not a quarry record", dir)
	}
	// The id becomes text in exports and listings and a name in the index
	// and the engine: only the shape quarry makes is taken.
	if !LooksLikeID(rec.ID) {
		return nil, fmt.Errorf("session record in %s: its session id %q is not one quarry makes: the file is damaged or not a quarry record", dir, rec.ID)
	}
	if rec.Version > RecordVersion {
		return nil, fmt.Errorf("session record in %s: version %d is newer than this quarry reads (%d): update quarry", dir, rec.Version, RecordVersion)
	}
	return rec, nil
}

func (rec *Record) add(e Entry) {
	switch e.Kind {
	case EntrySession:
		if rec.ID != "" {
			return
		}
		rec.ID, rec.Version, rec.Started, rec.Model, rec.Source = e.ID, e.V, e.Time, e.Model, e.Source
		if e.Settings != nil {
			rec.Settings = *e.Settings
		}
	case EntryResume:
		if e.Settings != nil {
			rec.Settings = *e.Settings
		}
		if e.Model != "" {
			rec.Model = e.Model
		}
	case EntryModel:
		if e.Model != "" {
			rec.Model = e.Model
		}
	case EntryCell:
		if e.Cell == nil {
			return
		}
		c := *e.Cell
		c.Result.Figures = rec.hostFiles(c.Result.Figures)
		c.Result.Files = rec.hostFiles(c.Result.Files)
		if c.Status == "" {
			c.Status = statusOf(c.Result)
		}
		e.Cell = &c
	case EntryInput:
		if e.Input == nil {
			return
		}
		if !isSHA256(e.Input.SHA256) {
			// Not a hash quarry computed: exports would print it, and resume
			// could not check the file against it.
			in := *e.Input
			in.SHA256 = ""
			e.Input = &in
		}
	}
	rec.Entries = append(rec.Entries, e)
}

// isSHA256 tells a hex SHA-256 as fileSHA256 writes it.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hostFiles gives each file its path in the session folder, from its name;
// a name the harvest would not have written (one that leaves the folder,
// or holds control characters an export or listing would print) gets none.
func (rec *Record) hostFiles(fs []kernel.File) []kernel.File {
	for i := range fs {
		fs[i].Path = ""
		if sandbox.CheckOutputName(fs[i].Name) == nil {
			fs[i].Path = filepath.Join(rec.Dir, filepath.FromSlash(fs[i].Name))
		}
	}
	return fs
}

// Turn is a question with the cells it ran and its answer.
type Turn struct {
	Question string
	Time     time.Time
	Cells    []Cell
	Answer   string // Markdown; empty when the turn ended without one
	Error    string // why the turn failed, when it did
	Usage    *agent.Tokens
	Numbers  []ground.Claim // the answer's numbers, checked (none when verify was off)
}

// Turns are the session as every reader takes it: the turns since the
// last /reset, without the ones taken back by undo.
func (rec *Record) Turns() []Turn {
	var turns []Turn
	for _, e := range rec.Entries {
		cur := len(turns) - 1
		switch e.Kind {
		case EntryReset:
			turns = nil
		case EntryQuestion:
			turns = append(turns, Turn{Question: e.Text, Time: e.Time})
		case EntryUndo:
			if cur >= 0 {
				turns = turns[:cur]
			}
		case EntryCell:
			if cur < 0 {
				turns = append(turns, Turn{Time: e.Time})
				cur = 0
			}
			turns[cur].Cells = append(turns[cur].Cells, *e.Cell)
		case EntryAnswer:
			if cur >= 0 {
				turns[cur].Answer, turns[cur].Usage, turns[cur].Numbers = e.Text, e.Usage, e.Numbers
			}
		case EntryError:
			if cur >= 0 {
				turns[cur].Error = e.Text
			}
		}
	}
	return turns
}

// Cells are the cells of Turns, in order.
func (rec *Record) Cells() []Cell {
	var out []Cell
	for _, t := range rec.Turns() {
		out = append(out, t.Cells...)
	}
	return out
}

// Inputs are the attached files in the order they were first attached; a
// file attached again under the same name (a resume on a new file)
// replaces the earlier entry.
func (rec *Record) Inputs() []Input {
	var out []Input
	at := map[string]int{}
	for _, e := range rec.Entries {
		if e.Kind != EntryInput {
			continue
		}
		if i, ok := at[e.Input.Name]; ok {
			out[i] = *e.Input
			continue
		}
		at[e.Input.Name] = len(out)
		out = append(out, *e.Input)
	}
	return out
}

// earlier is what the session's folder already holds, for a sandbox that
// continues it: every cell ever run there counts, undone or not.
func (rec *Record) earlier() *sandbox.Earlier {
	ef := &sandbox.Earlier{}
	for _, e := range rec.Entries {
		if e.Kind != EntryCell {
			continue
		}
		ef.Cells = max(ef.Cells, e.Cell.Num)
		ef.Files = append(ef.Files, e.Cell.Result.Files...)
		ef.Figures = append(ef.Figures, e.Cell.Result.Figures...)
	}
	return ef
}

// Dask is the Dask cluster the session's cells last reached, by name; empty
// when none.
func (rec *Record) Dask() string {
	out := ""
	for _, e := range rec.Entries {
		if (e.Kind == EntrySession || e.Kind == EntryResume) && e.Settings != nil {
			out = e.Settings.Dask
		}
	}
	return out
}

// Extras are the packages the session's sandbox had added to its image,
// as it last ran: the latest extras entry (a move mid-session), or the
// settings of the latest start or resume.
func (rec *Record) Extras() []RecordedExtra {
	var out []RecordedExtra
	for _, e := range rec.Entries {
		switch {
		case e.Kind == EntryExtras:
			out = e.Extras
		case (e.Kind == EntrySession || e.Kind == EntryResume) && e.Settings != nil:
			out = e.Settings.Extras
		}
	}
	return out
}

// markdownMode tells that the latest answer came through fenced code
// blocks (the server took no tool calls).
func (rec *Record) markdownMode() bool {
	for i := len(rec.Entries) - 1; i >= 0; i-- {
		if e := rec.Entries[i]; e.Kind == EntryAnswer {
			return e.ToolMode == "markdown"
		}
	}
	return false
}

// Title is the first question, on one line and shortened.
func (rec *Record) Title() string {
	for _, t := range rec.Turns() {
		if q := strings.Join(strings.Fields(t.Question), " "); q != "" {
			return shorten(q, 60)
		}
	}
	return ""
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n-1])) + "…"
}

// PastTurns are turns in the agent's terms, to load a conversation back.
func PastTurns(turns []Turn) []agent.PastTurn {
	out := make([]agent.PastTurn, len(turns))
	for i, t := range turns {
		p := agent.PastTurn{Question: t.Question, Answer: t.Answer, Numbers: t.Numbers}
		for _, c := range t.Cells {
			p.Cells = append(p.Cells, agent.PastCell{Num: c.Num, Code: c.Code, Result: c.Result})
		}
		out[i] = p
	}
	return out
}

// ReadFigures gives each figure of turns its bytes, read back from the
// session folder and checked as the harvest checked them, for a front end
// that draws them; a figure that fails the check keeps none.
func ReadFigures(turns []agent.PastTurn) {
	for i := range turns {
		for j := range turns[i].Cells {
			figs := turns[i].Cells[j].Result.Figures
			for k := range figs {
				figs[k].PNG, _ = kernel.ReadPNG(figs[k].Path)
			}
		}
	}
}
