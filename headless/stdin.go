package headless

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"
	"github.com/quarry-cli/quarry/filekind"
)

// Prompt reads the prompt (from stdin for "-") and returns ctx's error when
// ctx ends first: a standard input that never closes must not make Ctrl+C
// or SIGTERM wait.
func Prompt(ctx context.Context, p string, stdin io.Reader) (string, error) {
	var prompt string
	err := untilDone(ctx, func() (err error) {
		prompt, err = ReadPrompt(p, stdin)
		return err
	})
	return prompt, err
}

// PipedData saves data piped on stdin (not a terminal, not /dev/null) into
// dir as stdin.<type> and returns its path, or "" when there is none. It
// says so on the runner's progress first, so a script that hangs here shows
// why. Cancelling ctx stops the wait.
func (r *Runner) PipedData(ctx context.Context, stdin io.Reader, dir string) (string, error) {
	if !hasPipedData(stdin) {
		return "", nil
	}
	r.Phase("reading data from standard input (to attach none, run quarry with < /dev/null)")
	var path string
	err := untilDone(ctx, func() (err error) {
		path, err = saveStdin(dir, stdin)
		return err
	})
	return path, err
}

// hasPipedData reports whether stdin may carry data to attach: a pipe or a
// redirected file, not a terminal or /dev/null. Readers that are not files
// (tests) count as data.
func hasPipedData(stdin io.Reader) bool {
	if stdin == nil {
		return false
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return true
	}
	info, err := f.Stat()
	if err != nil {
		return false
	}
	m := info.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}

// saveStdin copies stdin into dir as stdin.<type>, named after its
// content's kind (stdin.csv, stdin.parquet, stdin.csv.gz). It returns ""
// when stdin was empty.
func saveStdin(dir string, stdin io.Reader) (path string, err error) {
	tmp := filepath.Join(dir, "stdin.data")
	f, err := os.Create(tmp)
	if err != nil {
		return "", fmt.Errorf("standard input: %v", err)
	}
	n, err := io.Copy(f, stdin)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("reading standard input: %v", err)
	}
	if n == 0 {
		return "", nil
	}
	id := filekind.Sniff(tmp, "standard input")
	if err := id.Err(); err != nil {
		return "", err
	}
	path = filepath.Join(dir, "stdin"+id.DataExt())
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("standard input: %v", err)
	}
	return path, nil
}

// untilDone runs read in a goroutine and returns its error, or ctx's when
// ctx ends first: a standard input that never closes must not make Ctrl+C
// or SIGTERM wait. The abandoned read ends with the process.
func untilDone(ctx context.Context, read func() error) error {
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}

func isTerminalFile(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// terminalWidth is w's width in columns, or 80.
func terminalWidth(w any) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}
