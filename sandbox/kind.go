package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/filekind"
)

// What a file is has one rule, the host's table of file kinds (package
// filekind). A file the host profiled comes with its row; code in the
// kernel that holds a file the host never saw (one a cell wrote, handed to
// variance() or sql(db=)) asks in a "kind" frame, sending the file's start
// and end. They are laid into a sparse file of its size, which is all the
// table reads: signatures at the start, a zip's directory at the end, the
// first bytes inside a packed file.
const (
	maxKindHead = 256 << 10
	maxKindTail = 64 << 10
)

func serveKind(k *kconn, f frame) {
	reply := map[string]any{"op": "kind_done", "cell": f.ID, "rid": f.RID}
	if row, err := identifySample(f.Name, f.Size, f.Head, f.Tail, f.TailAt); err != nil {
		reply["error"] = err.Error()
	} else {
		reply["kind"] = row
	}
	k.send(reply)
}

// identifySample identifies a file from its start (head) and the end that
// starts at tailAt; name is the kernel's, untrusted: only its base name's
// extension and words reach the answer.
func identifySample(name string, size int64, head, tail []byte, tailAt int64) (filekind.Request, error) {
	switch {
	case len(head) > maxKindHead || len(tail) > maxKindTail || size < int64(len(head)) || size > 1<<44:
		return filekind.Request{}, errors.New("kind: the sample is not one of a file")
	case len(tail) > 0 && (tailAt < int64(len(head)) || tailAt+int64(len(tail)) != size):
		return filekind.Request{}, errors.New("kind: the end does not end the file")
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, filepath.Base(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || name == "." || name == ".." || name == "/" {
		name = "file"
	}
	dir, err := os.MkdirTemp("", "quarry-kind-")
	if err != nil {
		return filekind.Request{}, fmt.Errorf("kind: %w", err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "sample")
	if err := writeSparse(p, size, head, tail, tailAt); err != nil {
		return filekind.Request{}, fmt.Errorf("kind: %w", err)
	}
	id := filekind.IdentifyAs(p, name)
	if err := id.Err(); err != nil {
		return filekind.Request{}, err
	}
	return id.Request(), nil
}

func writeSparse(p string, size int64, head, tail []byte, tailAt int64) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(head)
	if err == nil && len(tail) > 0 {
		_, err = f.WriteAt(tail, tailAt)
	}
	if err == nil {
		err = f.Truncate(size)
	}
	return errors.Join(err, f.Close())
}
