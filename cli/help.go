package cli

import (
	"bytes"
	"io"
)

// trimLines drops the spaces fang pads help lines with (it sets a block
// width), so help piped into a file or a pager has no trailing blanks.
type trimLines struct {
	w   io.Writer
	buf []byte
}

func (t *trimLines) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimRight(t.buf[:i], " \t")
		if _, err := t.w.Write(append(line, '\n')); err != nil {
			return 0, err
		}
		t.buf = t.buf[i+1:]
	}
	return len(p), nil
}

// flush writes a last line that has no newline.
func (t *trimLines) flush() {
	if len(t.buf) > 0 {
		t.w.Write(t.buf)
		t.buf = nil
	}
}
