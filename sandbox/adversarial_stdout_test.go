package sandbox_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/sandbox"
)

// Hostile output streams: volume, shape and terminal escapes. The sandbox
// caps and repairs (valid UTF-8) but does not sanitize: escapes reach
// kernel.Result raw, and render.Sanitize is the one place that strips them.

// maxKept is a generous bound on what a capped cell may return per result.
const maxKept = 512 << 10

func TestAdversarialOutputStreams(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 60 * time.Second})

	t.Run("EndlessOutputCapped", func(t *testing.T) {
		var chunks, chunkBytes int
		ctx := testCtx(t)
		res, err := s.Exec(ctx, `
import time
end = time.time() + 3
while time.time() < end:
    print('x' * 1000)
`, func(c kernel.Chunk) { chunks++; chunkBytes += len(c.Text) })
		if err != nil {
			t.Fatal(err)
		}
		mustOK(t, res)
		if res.Dropped == 0 {
			t.Errorf("3 s of printing dropped nothing (stdout %d bytes)", len(res.Stdout))
		}
		if len(res.Stdout)+len(res.Stderr) > maxKept || chunkBytes > 4*maxKept {
			t.Errorf("kept %d bytes, streamed %d bytes in %d chunks: output is not capped", len(res.Stdout)+len(res.Stderr), chunkBytes, chunks)
		}
		t.Logf("dropped %d, kept %d, streamed %d in %d chunks", res.Dropped, len(res.Stdout), chunkBytes, chunks)
	})

	t.Run("GigabyteSingleLine", func(t *testing.T) {
		res := run(t, s, `
import sys
chunk = 'y' * (1 << 20)
for _ in range(1024):
    sys.stdout.write(chunk)
`)
		mustOK(t, res)
		if res.Dropped < 1<<30-maxKept {
			t.Errorf("dropped %d bytes of a 1 GiB line", res.Dropped)
		}
		if len(res.Stdout) > maxKept {
			t.Errorf("kept %d bytes of a 1 GiB line", len(res.Stdout))
		}
		if !strings.HasPrefix(res.Stdout, "yyyy") {
			t.Errorf("head of the line missing: %.40q", res.Stdout)
		}
	})

	t.Run("FileDescriptorFlood", func(t *testing.T) {
		// Straight to fd 1 and 2, past Python's sys.stdout, as a C extension would.
		res := run(t, s, `
import os
chunk = b'z' * (1 << 20)
for _ in range(128):
    os.write(1, chunk)
    os.write(2, chunk)
print('done')
`)
		mustOK(t, res)
		if res.Dropped < 200<<20 || len(res.Stdout)+len(res.Stderr) > maxKept {
			t.Errorf("256 MiB to fds 1 and 2: dropped %d, kept %d", res.Dropped, len(res.Stdout)+len(res.Stderr))
		}
		res = run(t, s, "print('still', 'here')")
		if !strings.Contains(res.Stdout, "still here") {
			t.Errorf("next cell after the flood: %q %+v", res.Stdout, res.Error)
		}
	})

	t.Run("FiguresCapped", func(t *testing.T) {
		res := run(t, s, `
import matplotlib.pyplot as plt
for i in range(24):
    plt.figure(figsize=(1, 1), dpi=50)
    plt.plot([0, i])
`)
		mustOK(t, res)
		if len(res.Figures) == 0 || len(res.Figures) > 20 {
			t.Errorf("24 figures in one cell: %d harvested, want between 1 and 20", len(res.Figures))
		}
		for _, f := range res.Figures {
			if f.Width == 0 || f.Width > 10000 || !strings.HasPrefix(f.Name, "figures/") {
				t.Errorf("figure %+v", f)
			}
		}
		t.Logf("%d figures, notes %q", len(res.Figures), res.Notes)
	})

	t.Run("InvalidUTF8", func(t *testing.T) {
		res := run(t, s, `
import os, sys
sys.stdout.flush()
os.write(1, b'bad:\xff\xfe\xc3(\xed\xa0\x80:end\n')
sys.stdout.buffer.write(b'buf:\x80\x9b[2J:end\n')
sys.stdout.flush()
os.write(2, b'err:\xc0\xaf:end\n')
print('surrogate:\udcff:end')
`)
		for name, text := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
			if !utf8.ValidString(text) {
				t.Errorf("%s is not valid UTF-8: %q", name, text)
			}
		}
		if !strings.Contains(res.Stdout, "bad:") || !strings.Contains(res.Stdout, "\uFFFD") || !strings.Contains(res.Stderr, "err:") {
			t.Errorf("invalid bytes not replaced by U+FFFD: stdout %q stderr %q", res.Stdout, res.Stderr)
		}
	})

	t.Run("TerminalEscapesReachResultRawAndSanitizerStripsThem", func(t *testing.T) {
		seqs := map[string]string{
			"OSC 52 clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07",
			"OSC 8 link":       "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
			"OSC 0 title":      "\x1b]0;pwned\x07",
			"erase screen":     "\x1b[2J",
			"cursor home":      "\x1b[H",
			"title report":     "\x1b[21t",
			"device attrs":     "\x1b[c",
			"C1 CSI":           "\u009b2J",
			"C1 OSC":           "\u009d0;c1 title\u009c",
			"DCS":              "\x1bP+q544e\x1b\\",
			"bracketed paste":  "\x1b[201~",
		}
		var code strings.Builder
		code.WriteString("import sys\n")
		for _, seq := range seqs {
			code.WriteString("sys.stdout.write(" + pyStr("<"+seq+">") + ")\n")
			code.WriteString("sys.stderr.write(" + pyStr("<"+seq+">") + ")\n")
		}
		res := run(t, s, code.String())
		mustOK(t, res)
		for name, seq := range seqs {
			if !strings.Contains(res.Stdout, seq) || !strings.Contains(res.Stderr, seq) {
				t.Errorf("%s did not reach kernel.Result raw (the sandbox must not be the sanitizer)", name)
			}
		}
		clean := render.Sanitize(res.Stdout) + render.Sanitize(res.Stderr)
		if strings.ContainsAny(clean, "\x1b\x07\u009b\u009c\u009d\u0090") {
			t.Errorf("render.Sanitize left escape or control characters: %q", clean)
		}
		// An ESC sequence goes whole: its payload must not survive as plain
		// text. A C1 string control goes alone (U+0090 and its kin are mostly
		// mojibake); once it is gone, what follows is plain text.
		for _, payload := range []string{"cm0gLXJmIH4K", "evil.example", "pwned", "544e"} {
			if strings.Contains(clean, payload) {
				t.Errorf("render.Sanitize kept the payload %q of an escape sequence: %q", payload, clean)
			}
		}
	})
}
