package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// hostileText holds what a terminal acts on: C0 and C1 controls (JSON
// escapes only the C0 ones; jq -r prints both back raw).
const hostileText = "a\x1b]52;c;ZXZpbA==\x07b\u009b2Jc"

// noControls fails for any string in a JSON document that still holds a
// control character other than a newline or a tab.
func noControls(t *testing.T, what string, doc []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, doc)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case string:
			if strings.ContainsFunc(v, func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) }) {
				t.Errorf("%s: %s holds controls: %q", what, path, v)
			}
		case []any:
			for i, x := range v {
				walk(path+"["+string(rune('0'+i%10))+"]", x)
			}
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		}
	}
	walk("", v)
}

// hostileSession writes a session folder whose record carries hostile text
// wherever the model or the sandbox put text, and lists it in the index.
func hostileSession(t *testing.T) (*session.Record, string) {
	t.Helper()
	id := "20261129-173235-3761b5"
	dir := filepath.Join(t.TempDir(), id)
	os.MkdirAll(dir, 0o700)
	var b bytes.Buffer
	for _, e := range []session.Entry{
		{Kind: session.EntrySession, V: session.RecordVersion, ID: id, Model: hostileText, Source: hostileText},
		{Kind: session.EntryInput, Input: &session.Input{Name: "q1.csv", Path: "/srv/" + hostileText + ".csv"}},
		{Kind: session.EntryQuestion, Text: hostileText},
		{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Code: hostileText, Status: session.CellOK,
			Result: kernel.Result{Stdout: hostileText, Value: &kernel.Value{Repr: hostileText}}}},
	} {
		e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, session.RecordName), b.Bytes(), 0o600)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	index := filepath.Join(state, "quarry", "sessions")
	os.MkdirAll(index, 0o700)
	entry, _ := json.Marshal(map[string]any{"id": id, "dir": dir, "started": time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)})
	os.WriteFile(filepath.Join(index, id+".json"), entry, 0o600)
	rec, err := session.LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec, dir
}

// What scripts read (sessions --json, rerun --json) is sanitized like the
// terminal's text: every string that came from the model or the sandbox.
func TestJSONOutputsCarryNoControls(t *testing.T) {
	isolateConfig(t)
	rec, _ := hostileSession(t)

	code, out, errs := runQuarry(t, "sessions", "--json")
	if code != 0 {
		t.Fatalf("sessions --json: %d %s", code, errs)
	}
	noControls(t, "sessions --json", []byte(out))

	res := &session.RerunResult{ID: rec.ID, Dir: rec.Dir, Changes: []session.InputChange{{
		Name: "q1.csv", Path: "/srv/q3.csv", Known: true, Missing: []string{hostileText}, Added: []string{hostileText},
		Dtypes: []session.DtypeChange{{Column: hostileText, Was: hostileText, Now: hostileText}}}}}
	var buf bytes.Buffer
	if err := writeRerunJSON(&buf, rec, res, filepath.Join(rec.Dir, "report.md"), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	noControls(t, "rerun --json", buf.Bytes())
}
