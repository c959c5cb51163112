package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// DB answers the kernel's sql(query, db=NAME) for databases outside the
// sandbox: the container has no network, so the host runs the query and
// streams the result in. The sandbox knows nothing of databases; the
// session gives it one (package source behind an adapter).
type DB interface {
	// QueryDB runs query on the database called name, within timeout, and
	// writes its rows to w as an Arrow IPC stream (nothing for a statement
	// without rows). maxRows 0 is the database's own cap. The error's text
	// is shown in the cell as is: it must hold no credential.
	QueryDB(ctx context.Context, name, query string, maxRows int64, timeout time.Duration, w io.Writer) (DBResult, error)
}

// DBResult says what QueryDB sent.
type DBResult struct {
	Rows int64
	// Note is said in the cell (on stderr), e.g. that a cap cut the result.
	Note string
}

// dbChunk is how much of a result goes in one message to the kernel.
const dbChunk = 1 << 20

// serveDB answers one "db" frame of the running cell. The kernel's reader
// thread collects the chunks by request id (rid) and wakes the cell at
// db_done; chunks of a call the kernel gave up on are read and dropped.
func (s *Session) serveDB(ctx context.Context, k *kconn, f frame) {
	w := &dbWriter{k: k, cell: f.ID, rid: f.RID}
	var res DBResult
	var err error
	if s.opts.DB == nil {
		err = fmt.Errorf("no database source named %q: start quarry with --db %s=URL, or attach a SQLite or DuckDB file", f.DB, f.DB)
	} else {
		res, err = s.opts.DB.QueryDB(ctx, f.DB, f.Query, f.MaxRows, s.opts.Timeout, w)
	}
	if err == nil {
		err = w.flush()
	}
	done := map[string]any{"op": "db_done", "cell": f.ID, "rid": f.RID, "rows": res.Rows, "note": res.Note}
	if err != nil {
		done["error"] = err.Error()
	}
	k.send(done)
}

// dbWriter sends the Arrow stream to the kernel in chunks: a JSON line
// giving the length, then the bytes.
type dbWriter struct {
	k    *kconn
	cell int64 // the request id of the cell: rids restart after a restore
	rid  int64
	buf  []byte
	err  error
}

func (w *dbWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= dbChunk {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (w *dbWriter) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	hdr, _ := json.Marshal(map[string]any{"op": "db_chunk", "cell": w.cell, "rid": w.rid, "len": len(w.buf)})
	msg := make([]byte, 0, len(hdr)+1+len(w.buf))
	msg = append(append(append(msg, hdr...), '\n'), w.buf...)
	w.buf = w.buf[:0]
	if err := w.k.sendRaw(msg); err != nil {
		w.err = fmt.Errorf("kernel write: %w", err)
	}
	return w.err
}

var _ io.Writer = (*dbWriter)(nil)
