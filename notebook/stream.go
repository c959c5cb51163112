package notebook

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// A notebook's outputs may hold hundreds of megabytes of images. It is read
// as a stream: every JSON string is cut to maxJSONString on the way in, so
// what the decoder holds at once is one cell with its outputs cut short,
// whatever the file's size; what a rerun keeps of the outputs (notebook
// outputs, for the comparison) is text, capped again.

// maxJSONString is the longest string kept whole: longer ones (base64
// images) are cut. A line of code longer than this is not one people write.
const maxJSONString = 256 << 10

// cutStrings passes JSON through, cutting each string after max bytes of
// its body (at a whole escape, so the JSON stays valid) and marking the cut
// with cutMark, so a cut line of code is told from a whole one.
type cutStrings struct {
	r       *bufio.Reader
	max     int
	in      bool // inside a string
	esc     int  // bytes of an escape still to come (\uXXXX: 5 after the backslash)
	n       int  // bytes of the current string's body
	cut     bool // the current string was cut
	pending []byte
}

// cutMark ends a string that was cut: a NUL, which no notebook's text holds.
const cutMark = "\x00"

func newCutStrings(r io.Reader, max int) *cutStrings {
	return &cutStrings{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

func (c *cutStrings) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if len(c.pending) > 0 {
			k := copy(p[w:], c.pending)
			c.pending, w = c.pending[k:], w+k
			continue
		}
		b, err := c.r.ReadByte()
		if err != nil {
			return w, err
		}
		keep := true
		switch {
		case !c.in:
			if b == '"' {
				c.in, c.n, c.esc, c.cut = true, 0, 0, false
			}
		case c.esc > 0:
			c.esc--
			if c.esc == 4 && b != 'u' {
				c.esc = 0 // a one-letter escape
			}
			keep = c.n <= c.max
		case b == '\\':
			c.esc = 5
			c.n++
			keep = c.n <= c.max
		case b == '"':
			c.in = false
		default:
			c.n++
			keep = c.n <= c.max
		}
		if keep {
			p[w] = b
			w++
		} else if !c.cut {
			c.cut, c.pending = true, []byte(`\u0000`)
		}
	}
	return w, nil
}

// walkNotebook reads the top level of a notebook from r: each cell is
// decoded on its own and given to cell; the other keys fill nb.
func walkNotebook(r io.Reader, nb *nbFile, cell func(readNBCell) error) error {
	dec := json.NewDecoder(newCutStrings(r, maxJSONString))
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case "nbformat":
			err = dec.Decode(&nb.NBFormat)
		case "metadata":
			err = dec.Decode(&nb.Metadata)
		case "cells":
			if err = expectDelim(dec, '['); err != nil {
				return err
			}
			for dec.More() {
				var c readNBCell
				if err := dec.Decode(&c); err != nil {
					return err
				}
				if err := cell(c); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("expected %q, found %v", d, t)
	}
	return nil
}

// skipValue reads one value token by token, so a large one (nbformat 3's
// worksheets) is never held whole.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
