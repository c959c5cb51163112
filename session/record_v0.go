package session

import (
	"encoding/json"
	"path"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// Version 0 of the record is the transcript.jsonl quarry wrote before
// records: every event of the stream, one per line, with the prompts and
// attachments between them. It is read into the same entries; what it
// lacks (the inputs' host paths and hashes, settings) stays empty.

// isTranscript tells a version 0 transcript by its header, which names the
// session in "session" and has no version.
func isTranscript(line []byte) bool {
	var h struct {
		Kind    string `json:"kind"`
		V       *int   `json:"v"`
		Session string `json:"session"`
	}
	return json.Unmarshal(line, &h) == nil && h.Kind == "session" && h.V == nil && h.Session != ""
}

// transcriptEntry reads one line of a version 0 transcript: the header,
// the prompts, attachments and the events, of which the record keeps the
// same ones it keeps today. ok false with a Kind means a line to ignore.
func transcriptEntry(line []byte, usage **agent.Tokens) (Entry, bool) {
	var l struct {
		Kind    string         `json:"kind"`
		Time    time.Time      `json:"time"`
		Text    string         `json:"text"`
		Session string         `json:"session"`
		Model   string         `json:"model"`
		Cell    int            `json:"cell"`
		Code    string         `json:"code"`
		Result  *kernel.Result `json:"result"`
		Usage   *agent.Usage   `json:"usage"`
	}
	if err := json.Unmarshal(line, &l); err != nil || l.Kind == "" {
		return Entry{}, false
	}
	e := Entry{Time: l.Time}
	switch l.Kind {
	case "session":
		e.Kind, e.ID, e.Model = EntrySession, l.Session, l.Model
	case "user":
		*usage = nil
		e.Kind, e.Text = EntryQuestion, l.Text
	case "attach": // only the /data path was kept
		name := path.Base(l.Text)
		e.Kind, e.Input = EntryInput, &Input{Name: name}
	case "cell_done":
		if l.Result == nil {
			return Entry{Kind: EntryKind(l.Kind)}, false
		}
		e.Kind, e.Cell = EntryCell, &Cell{Num: l.Cell, Code: l.Code, Result: *l.Result}
	case "usage":
		if l.Usage != nil {
			u := l.Usage.Turn
			*usage = &u
		}
		return Entry{Kind: EntryKind(l.Kind)}, false
	case "turn_done":
		e.Kind, e.Text, e.Usage = EntryAnswer, l.Text, *usage
	case "error":
		e.Kind, e.Text = EntryError, l.Text
	case "warning":
		e.Kind, e.Text = EntryWarning, l.Text
	case "reset":
		e.Kind = EntryReset
	case "model":
		e.Kind, e.Model = EntryModel, l.Text
	default:
		return Entry{Kind: EntryKind(l.Kind)}, false
	}
	return e, true
}
