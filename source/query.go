package source

import (
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Limits bound one query. Zero fields take the defaults.
type Limits struct {
	Timeout  time.Duration // the server's statement time limit: the cell's timeout
	MaxRows  int64         // rows sent to the kernel; the rest are not fetched
	MaxBytes int64         // bytes of values sent to the kernel
}

// Defaults for Limits.
const (
	DefaultMaxRows  = 1_000_000
	DefaultMaxBytes = 512 << 20
	DefaultTimeout  = 2 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Result says what a query sent.
type Result struct {
	Rows    int64
	Columns int
	Bytes   int64
	// Cut says why fewer rows were sent than the query had (a cap was
	// reached); empty when the result is whole.
	Cut string
}

// batchRows is the rows per Arrow record batch: large enough that the
// per-batch cost vanishes, small enough to stream.
const batchRows = 64 << 10

// batches writes a result as an Arrow IPC stream, LZ4-compressed (the
// stream crosses the engine's attach, where bytes cost more than the CPU),
// and keeps the caps: every kind's rows go through it.
type batches struct {
	b   *array.RecordBuilder
	iw  *ipc.Writer
	lim Limits
	res Result
	n   int // rows in the batch being built
}

func newBatches(fields []arrow.Field, lim Limits, w io.Writer) *batches {
	schema := arrow.NewSchema(uniqueNames(fields), nil)
	return &batches{
		b:   array.NewRecordBuilder(memory.DefaultAllocator, schema),
		iw:  ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator), ipc.WithLZ4()),
		lim: lim,
		res: Result{Columns: len(fields)},
	}
}

// field is the builder of column i of the row being added.
func (o *batches) field(i int) array.Builder { return o.b.Field(i) }

// admit says whether a row of size bytes may still be sent; when a cap is
// reached it says so in the result, and the caller stops the query.
func (o *batches) admit(size int64) bool {
	switch {
	case o.res.Rows >= o.lim.MaxRows:
		o.res.Cut = fmt.Sprintf("the result has more than %d rows; only the first %d were fetched (the row cap): aggregate in SQL, or pass max_rows= (setting db_max_rows)", o.lim.MaxRows, o.lim.MaxRows)
	case o.res.Bytes+size > o.lim.MaxBytes:
		o.res.Cut = fmt.Sprintf("the result is larger than %d MiB; only the first %d rows were fetched (the size cap): select fewer columns, aggregate in SQL (setting db_max_bytes)", o.lim.MaxBytes>>20, o.res.Rows)
	default:
		return true
	}
	return false
}

// added counts the row just appended, of size bytes, and writes the batch
// when it is full.
func (o *batches) added(size int64) error {
	o.res.Rows++
	o.res.Bytes += size
	if o.n++; o.n == batchRows {
		return o.flush()
	}
	return nil
}

func (o *batches) flush() error {
	rec := o.b.NewRecordBatch()
	defer rec.Release()
	o.n = 0
	return o.iw.Write(rec)
}

// finish writes the last batch (an empty one for a result without rows,
// so the stream has its schema) and ends the stream.
func (o *batches) finish() (Result, error) {
	if o.n > 0 || o.res.Rows == 0 {
		if err := o.flush(); err != nil {
			return o.res, err
		}
	}
	return o.res, o.iw.Close()
}

// release frees the builder.
func (o *batches) release() { o.b.Release() }

// uniqueNames renames repeated column names (SELECT a.id, b.id) the way
// pandas would not: id, id_2; a DataFrame with two "id" columns misleads.
func uniqueNames(fields []arrow.Field) []arrow.Field {
	seen := map[string]int{}
	for i := range fields {
		name := fields[i].Name
		if seen[name]++; seen[name] > 1 {
			fields[i].Name = fmt.Sprintf("%s_%d", name, seen[name])
		}
	}
	return fields
}
