package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
)

const recordKey = "sk-test-DO-NOT-LEAK-0123456789"

// recordedSession writes a record the way a session does: through
// publish, Ask's question and Attach's input.
func recordedSession(t *testing.T, dir string) *Session {
	t.Helper()
	s := New(Options{Config: config.Config{Model: "m", APIKey: recordKey}, OutputDir: dir})
	os.MkdirAll(dir, 0o700)
	rec, err := createRecord(filepath.Join(dir, RecordName), s.mask)
	if err != nil {
		t.Fatal(err)
	}
	s.rec = rec
	rec.header("20260101-120000-abcdef", "gpt-fake", "", Settings{ToolMode: "native", Endpoint: "http://127.0.0.1:1/v1"})
	rec.input(Input{Name: "q1.csv", Path: "/home/ana/q1.csv", Size: 10, SHA256: strings.Repeat("ab", 32)})
	rec.question("variance by department; key " + recordKey)
	fig := kernel.File{Name: "figures/cell1-1.png", Path: filepath.Join(dir, "figures", "cell1-1.png"), Size: 3, PNG: []byte("png")}
	s.publish(agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "v = 1"}, nil)
	s.publish(agent.Event{Kind: agent.EventCellOutput, Cell: 1, Chunk: &kernel.Chunk{Text: "x"}}, nil)
	s.publish(agent.Event{Kind: agent.EventCellDone, Cell: 1, Code: "v = 1", Result: &kernel.Result{Stdout: "1\n", Figures: []kernel.File{fig}, Duration: time.Second}}, nil)
	s.publish(agent.Event{Kind: agent.EventCellDone, Cell: 2, Code: "v.x", Result: &kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "AttributeError", Message: recordKey}}}, nil)
	s.publish(agent.Event{Kind: agent.EventText, Text: "North"}, nil)
	s.publish(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Turn: agent.Tokens{Prompt: 10, Completion: 2}}}, nil)
	s.publish(agent.Event{Kind: agent.EventTurnDone, Text: "North grew."}, nil)
	return s
}

func TestRecordRoundTripWithoutKey(t *testing.T) {
	dir := t.TempDir()
	s := recordedSession(t, dir)
	if err := s.rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.rec.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s.rec.question("after close is dropped") // must not panic
	data, _ := os.ReadFile(filepath.Join(dir, RecordName))
	if strings.Contains(string(data), recordKey) {
		t.Fatalf("the record holds the API key:\n%s", data)
	}
	if strings.Contains(string(data), dir) || strings.Contains(string(data), `"text":"North"`) {
		t.Errorf("the record holds host paths of figures or text deltas:\n%s", data)
	}
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID != "20260101-120000-abcdef" || rec.Version != RecordVersion || rec.Model != "gpt-fake" || rec.Settings.ToolMode != "native" || rec.Skipped != 0 {
		t.Fatalf("record %+v", rec)
	}
	turns := rec.Turns()
	if len(turns) != 1 || len(turns[0].Cells) != 2 || turns[0].Answer != "North grew." || turns[0].Usage == nil || turns[0].Usage.Prompt != 10 {
		t.Fatalf("turns %+v", turns)
	}
	c := turns[0].Cells
	if c[0].Status != CellOK || c[1].Status != CellFailed || c[0].Result.Duration != time.Second {
		t.Errorf("cells %+v", c)
	}
	if f := c[0].Result.Figures; len(f) != 1 || f[0].Path != filepath.Join(dir, "figures", "cell1-1.png") {
		t.Errorf("figure %+v, want its path in the folder", f)
	}
	if in := rec.Inputs(); len(in) != 1 || in[0].Path != "/home/ana/q1.csv" || in[0].SHA256 != strings.Repeat("ab", 32) {
		t.Errorf("inputs %+v", in)
	}
	if got := rec.Title(); !strings.HasPrefix(got, "variance by department; key ") || len([]rune(got)) > 60 {
		t.Errorf("title %q", got)
	}
	if got := rec.replayCells(); len(got) != 1 || got[0].Num != 1 {
		t.Errorf("succeeded %+v", got)
	}
}

// A kill while a line is written leaves it torn: loading skips it, and
// appending starts a new line rather than gluing onto it.
func TestRecordTornLastLine(t *testing.T) {
	dir := t.TempDir()
	s := recordedSession(t, dir)
	s.rec.Close()
	p := filepath.Join(dir, RecordName)
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"kind":"cell","time":"2026-01-01T12:00:00Z","cell":{"n":3,"code":"x = `)
	f.Close()
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Skipped != 1 || len(rec.Cells()) != 2 {
		t.Fatalf("skipped %d, %d cells", rec.Skipped, len(rec.Cells()))
	}
	r, err := appendRecord(p, s.mask)
	if err != nil {
		t.Fatal(err)
	}
	r.question("after the crash")
	r.Close()
	rec, err = LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if turns := rec.Turns(); rec.Skipped != 1 || len(turns) != 2 || turns[1].Question != "after the crash" {
		t.Fatalf("skipped %d, turns %+v", rec.Skipped, turns)
	}
}

func TestRecordDamaged(t *testing.T) {
	for name, body := range map[string]string{
		"empty":     "",
		"no header": `{"kind":"question","text":"x"}` + "\n",
		"not json":  "\x00\x01binary\n",
		"newer":     `{"kind":"session","v":99,"id":"20260101-120000-abcdef"}` + "\n",
		// The id names the session in exports, listings and paths: one
		// that is not quarry's shape is markup or escapes in waiting.
		"foreign id": `{"kind":"session","v":1,"id":"x` + "`" + ` <img src=x onerror=alert(1)> \u001b]0;pwned\u0007"}` + "\n",
		"v0 foreign": `{"kind":"session","session":"../../x"}` + "\n",
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, RecordName), []byte(body), 0o600)
		_, err := LoadRecord(dir)
		if err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v, want an error naming the folder", name, err)
		}
	}
	if _, err := LoadRecord(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no session record") {
		t.Errorf("empty folder: %v", err)
	}
}

// Undo takes back the latest turn, again and again; a reset starts the
// session over; every reader sees the result through Turns.
func TestTurnsAfterUndoAndReset(t *testing.T) {
	e := func(k EntryKind, text string) Entry { return Entry{Kind: k, Text: text} }
	cell := func(n int) Entry { return Entry{Kind: EntryCell, Cell: &Cell{Num: n, Status: CellOK}} }
	rec := &Record{ID: "x"}
	for _, en := range []Entry{
		e(EntryQuestion, "before reset"), cell(1), e(EntryReset, ""),
		e(EntryQuestion, "one"), cell(2), e(EntryAnswer, "a1"),
		e(EntryQuestion, "two"), cell(3), e(EntryAnswer, "a2"),
		e(EntryQuestion, "three"), cell(4), e(EntryAnswer, "a3"),
		e(EntryUndo, "three"), e(EntryUndo, "two"),
		e(EntryQuestion, "four"), cell(5), e(EntryError, "model gone"),
	} {
		rec.add(en)
	}
	turns := rec.Turns()
	var qs []string
	for _, t := range turns {
		qs = append(qs, t.Question)
	}
	if strings.Join(qs, ",") != "one,four" || turns[1].Error != "model gone" || turns[1].Answer != "" {
		t.Fatalf("turns %+v", turns)
	}
	if c := rec.Cells(); len(c) != 2 || c[0].Num != 2 || c[1].Num != 5 {
		t.Errorf("cells %+v", c)
	}
	if ef := rec.earlier(); ef.Cells != 5 {
		t.Errorf("earlier cells %d: undone cells still numbered the folder's figures", ef.Cells)
	}
}

// The transcript.jsonl of quarry before records (version 0, written by
// that quarry in testdata/v0) still loads as a session.
func TestLoadVersion0Transcript(t *testing.T) {
	rec, err := LoadRecord("testdata/v0")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 0 || rec.ID != "20261201-090955-75b11a" || rec.Model != "gpt-fake" || rec.Skipped != 0 {
		t.Fatalf("record %+v", rec)
	}
	turns := rec.Turns()
	if len(turns) != 2 || turns[0].Question != "revenue by region?" || turns[1].Answer != "The total is 270000." {
		t.Fatalf("turns %+v", turns)
	}
	if turns[0].Usage == nil || turns[0].Usage.Completion != 39 {
		t.Errorf("usage %+v", turns[0].Usage)
	}
	cells := rec.Cells()
	if len(cells) != 3 || cells[1].Status != CellFailed || cells[1].Result.Error.Type != "KeyError" {
		t.Fatalf("cells %+v", cells)
	}
	figs := cells[0].Result.Figures
	abs, _ := filepath.Abs("testdata/v0/figures/cell1-1.png")
	if len(figs) != 1 || figs[0].Path != abs || len(cells[0].Result.Files) != 1 {
		t.Fatalf("figures %+v files %+v", figs, cells[0].Result.Files)
	}
	if _, err := os.Stat(figs[0].Path); err != nil {
		t.Error(err)
	}
	if in := rec.Inputs(); len(in) != 1 || in[0].Name != "q1.csv" || in[0].Path != "" {
		t.Errorf("inputs %+v", in)
	}
	if c := rec.CheckInputs(); len(c) != 1 || !c[0].Gone {
		t.Errorf("an input without its host path is not flagged: %+v", c)
	}
}

func kernelOK() kernel.Result { return kernel.Result{Stdout: "ok\n"} }

// A session open in one process cannot be continued by another at the
// same time; once closed (or the process killed), it can.
func TestRecordLockedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	s := recordedSession(t, dir)
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.InUse() {
		t.Error("an open session is not in use")
	}
	if _, err := appendRecord(filepath.Join(dir, RecordName), s.mask); err == nil || !strings.Contains(err.Error(), "open in another quarry process") {
		t.Errorf("a second writer: %v", err)
	}
	s.rec.Close()
	if rec.InUse() {
		t.Error("a closed session is still in use")
	}
	r, err := appendRecord(filepath.Join(dir, RecordName), s.mask)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// An undo goes through the event stream like every event: the record
// keeps it, and the turn it takes back is gone for every reader.
func TestUndoEventTakesTheTurnBack(t *testing.T) {
	dir := t.TempDir()
	s := recordedSession(t, dir)
	s.rec.question("second question")
	s.publish(agent.Event{Kind: agent.EventCellDone, Cell: 3, Code: "w = 2", Result: &kernel.Result{}}, nil)
	s.publish(agent.Event{Kind: agent.EventTurnDone, Text: "done"}, nil)
	s.publish(agent.Event{Kind: agent.EventUndo, Text: "second question"}, nil)
	s.rec.Close()
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if turns := rec.Turns(); len(turns) != 1 || rec.Summary().Cells != 2 || len(rec.replayCells()) != 1 {
		t.Errorf("after undo: %d turns, summary %+v", len(turns), rec.Summary())
	}
	if rec.earlier().Cells != 3 {
		t.Error("the undone cell's number would be given again")
	}
}

// A record names its figures and files relative to its folder; a name the
// harvest would never have written (one that leaves the folder, or carries
// terminal controls or bidi overrides that exports and listings would show)
// gets no host path, so nothing reads or prints it.
func TestRecordFileNamesStayInTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20260101-120000-abcdef")
	os.MkdirAll(filepath.Join(dir, "figures"), 0o700)
	names := []string{
		"figures/cell1-1.png", "../outside.png", "/etc/passwd", "figures/../../x.png", "./figures/cell1-1.png",
		"figures/\x1b]0;pwned\x07.png", "figures/\u202egnp.exe", "figures\\cell1-1.png", "figures//cell1-1.png",
	}
	var figs []kernel.File
	for _, n := range names {
		figs = append(figs, kernel.File{Name: n})
	}
	var b bytes.Buffer
	for _, e := range []Entry{
		{Kind: EntrySession, V: RecordVersion, ID: filepath.Base(dir)},
		{Kind: EntryCell, Cell: &Cell{Num: 1, Code: "x", Status: CellOK, Result: kernel.Result{Figures: figs, Files: figs}}},
	} {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, RecordName), b.Bytes(), 0o600)
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells()[0]
	for i, f := range append(c.Result.Figures, c.Result.Files...) {
		want := ""
		if i%len(names) == 0 {
			want = filepath.Join(dir, "figures", "cell1-1.png")
		}
		if f.Path != want {
			t.Errorf("%q: path %q, want %q", f.Name, f.Path, want)
		}
	}
}

// An input's hash is one quarry computed (64 hex digits) or none: exports
// print it, and resume trusts the file it names only when it matches. An
// input recorded without one is not taken as unchanged.
func TestRecordInputHashes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("region,revenue\nNorth,1\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "20260101-120000-abcdef")
	os.MkdirAll(dir, 0o700)
	var b bytes.Buffer
	for _, e := range []Entry{
		{Kind: EntrySession, V: RecordVersion, ID: filepath.Base(dir)},
		{Kind: EntryInput, Input: &Input{Name: "q1.csv", Path: data, Size: 22, SHA256: "\x1b]0;pwned\x07"}},
		{Kind: EntryInput, Input: &Input{Name: "q2.csv", Path: data, Size: 22, SHA256: fileSHA256(data)}},
	} {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, RecordName), b.Bytes(), 0o600)
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	ins := rec.Inputs()
	if ins[0].SHA256 != "" || ins[1].SHA256 != fileSHA256(data) {
		t.Errorf("hashes %q %q", ins[0].SHA256, ins[1].SHA256)
	}
	checks := rec.CheckInputs()
	if !strings.Contains(checks[0].Problem, "without its SHA-256") || checks[0].Gone {
		t.Errorf("input without a hash: %+v", checks[0])
	}
	if checks[1].Problem != "" {
		t.Errorf("unchanged input flagged: %+v", checks[1])
	}
}

// A resume rebuilds the state the session ended in, as undo would: cells
// before a kernel loss, and a question's cells its kernel went back past,
// are not run again.
func TestReplayCellsFollowLostAndRewoundKernels(t *testing.T) {
	dir := t.TempDir()
	s := recordedSession(t, dir) // cell 1 ok, cell 2 failed
	done := func(n int, r kernel.Result) {
		s.publish(agent.Event{Kind: agent.EventCellDone, Cell: n, Code: fmt.Sprintf("c%d", n), Result: &r}, nil)
	}
	s.rec.question("second")
	done(3, kernel.Result{Error: &kernel.Error{Kind: kernel.ErrOutOfMemory}, StateLost: true})
	done(4, kernel.Result{})
	s.publish(agent.Event{Kind: agent.EventTurnDone, Text: "reloaded"}, nil)
	s.rec.question("third")
	done(5, kernel.Result{})
	done(6, kernel.Result{Error: &kernel.Error{Kind: kernel.ErrCrashed}, Rewound: true})
	done(7, kernel.Result{})
	s.publish(agent.Event{Kind: agent.EventTurnDone, Text: "lighter"}, nil)
	s.rec.Close()
	rec, err := LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, c := range rec.replayCells() {
		got = append(got, c.Num)
	}
	if fmt.Sprint(got) != "[4 7]" {
		t.Errorf("replayed cells %v, want [4 7]", got)
	}
}
