package notebook

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// writeBigNotebook writes a notebook of cells code cells, each with an
// embedded PNG output of png bytes (base64 text) and a line printed.
func writeBigNotebook(t testing.TB, path string, cells, png int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", png/24+1)[:png]
	w.WriteString(`{"cells": [`)
	for i := 0; i < cells; i++ {
		if i > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `{"cell_type": "code", "execution_count": %d, "id": "c%d", "metadata": {}, "source": ["print('CELL', %d)\n", "plt.plot([1, 2])"],
 "outputs": [{"output_type": "stream", "name": "stdout", "text": ["CELL %d\n"]},
  {"output_type": "display_data", "metadata": {}, "data": {"image/png": "%s", "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}]}`, i+1, i, i, i, img)
	}
	w.WriteString(`], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// A 200 MB notebook full of embedded figures is read as a stream: the
// heap stays far below the file's size, and what a rerun needs (the code,
// the printed text, the figure count) is all there.
func TestReadNotebookOfHundredsOfMegabytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "figures.ipynb")
	writeBigNotebook(t, path, 200, 1<<20)
	if st, _ := os.Stat(path); st.Size() < 200<<20 {
		t.Fatalf("the notebook is %d bytes", st.Size())
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	nb, err := ReadNotebook(path)
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if grown := int64(peak.Load()) - int64(base.HeapInuse); grown > 64<<20 {
		t.Errorf("reading a 200 MB notebook grew the heap by %d MB, want under 64", grown>>20)
	}
	if n := len(nb.Turns[0].Cells); n != 200 || len(nb.Stored) != 200 {
		t.Fatalf("%d cells, %d stored outputs, want 200", n, len(nb.Stored))
	}
	if s := nb.Stored[199]; s.Stdout != "CELL 199\n" || s.Figures != 1 || nb.Turns[0].Cells[199].Code != "print('CELL', 199)\nplt.plot([1, 2])" {
		t.Errorf("the last cell: %+v %q", s, nb.Turns[0].Cells[199].Code)
	}
}

// Strings over the cut are cut whole escapes at a time: the JSON stays
// valid whatever escape the cut meets.
func TestCutStringsKeepsJSONValid(t *testing.T) {
	for _, body := range []string{strings.Repeat(`\u00e9`, 100), strings.Repeat(`\"`, 100), strings.Repeat("é", 100)} {
		var b strings.Builder
		buf := make([]byte, 7)
		c := newCutStrings(strings.NewReader(`{"a": "`+body+`", "b": 1}`), 33)
		for {
			n, err := c.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		var nb nbFile
		if err := walkNotebook(strings.NewReader(b.String()), &nb, func(readNBCell) error { return nil }); err != nil {
			t.Errorf("%.20s…: %v in %s", body, err, b.String())
		}
	}
}

// A line of code over the cut is refused, not run cut short.
func TestReadNotebookRefusesAHugeLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.ipynb")
	os.WriteFile(path, []byte(`{"cells": [{"cell_type": "code", "id": "big", "metadata": {}, "outputs": [], "source": "x = '`+
		strings.Repeat("a", maxJSONString+10)+`'"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	_, err := ReadNotebook(path)
	if err == nil || !strings.Contains(err.Error(), path+": cell big has a line of over 256 KiB") || strings.Contains(err.Error(), "not a Jupyter notebook") {
		t.Errorf("%v", err)
	}
}

func BenchmarkReadBigNotebook(b *testing.B) {
	path := filepath.Join(b.TempDir(), "figures.ipynb")
	writeBigNotebook(b, path, 200, 1<<20)
	b.SetBytes(200 << 20)
	for b.Loop() {
		if _, err := ReadNotebook(path); err != nil {
			b.Fatal(err)
		}
	}
}
