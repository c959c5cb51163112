package openaitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Replays of streams recorded from real model servers. A recording is read
// from a file (one chunk JSON per line, or SSE "data:" lines; "#" lines
// are notes), split into the responses it holds, and rewritten so that its
// tool call runs a real cell (AsCall) or its text is an answer the test
// chooses (AsAnswer), keeping everything else the server sent: the keys,
// the fragmenting, the ids, the finish chunk, the usage. Framing puts it
// on the wire.

// Chunk is one stream chunk as the server sent it.
type Chunk map[string]any

// Stream is the chunks of one response, in order.
type Stream []Chunk

// Recording is a recorded file: one or more responses back to back, and
// the points where the recorder saw a data line arrive in two reads.
type Recording struct {
	Path    string
	Streams []Stream
	// Splits maps a chunk (by stream and position) to the byte offset in
	// its JSON where the line was cut between two reads.
	Splits map[[2]int]int
}

// LoadRecording reads a recorded stream. Responses are told apart by the
// chunk id: a new non-empty id starts the next response.
func LoadRecording(path string) (*Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Path: path, Splits: map[[2]int]int{}}
	var payloads []string
	var cuts []int // per payload: where a continuation line was joined, or -1
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, ":"):
		case strings.HasPrefix(t, "data:"):
			p := strings.TrimSpace(strings.TrimPrefix(t, "data:"))
			if p != "[DONE]" {
				payloads, cuts = append(payloads, p), append(cuts, -1)
			}
		case strings.HasPrefix(t, "{") && !continues(payloads):
			payloads, cuts = append(payloads, t), append(cuts, -1)
		case len(payloads) > 0:
			// A data line the recorder received in two reads.
			cuts[len(cuts)-1] = len(payloads[len(payloads)-1])
			payloads[len(payloads)-1] += line
		default:
			return nil, fmt.Errorf("%s: a line that is neither data nor a chunk: %.40q", path, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	lastID := ""
	for i, p := range payloads {
		var c Chunk
		dec := json.NewDecoder(strings.NewReader(p))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: chunk %d: %v", path, i+1, err)
		}
		id, _ := c["id"].(string)
		if len(rec.Streams) == 0 || (id != "" && lastID != "" && id != lastID) {
			rec.Streams = append(rec.Streams, nil)
		}
		if id != "" {
			lastID = id
		}
		s := len(rec.Streams) - 1
		if cuts[i] >= 0 {
			rec.Splits[[2]int{s, len(rec.Streams[s])}] = cuts[i]
		}
		rec.Streams[s] = append(rec.Streams[s], c)
	}
	if len(rec.Streams) == 0 {
		return nil, fmt.Errorf("%s: no chunks", path)
	}
	return rec, nil
}

// continues says whether the last payload is unfinished JSON, so that the
// next line is its rest rather than a chunk of its own.
func continues(payloads []string) bool {
	return len(payloads) > 0 && !json.Valid([]byte(payloads[len(payloads)-1]))
}
