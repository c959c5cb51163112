package source

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// MariaDB's types reach Arrow as what they hold: unsigned stays unsigned
// (to 2^64-1), DECIMAL exact, DATETIME naive, TIMESTAMP in UTC, a zero
// date NULL, TIME a duration, BIT a number, BLOB bytes, JSON text.
func TestMariaDBTypes(t *testing.T) {
	srv, src := salesDB(t, sourcetest.Kinds()[1])
	srv.Exec(t, "sales", `SET SESSION sql_mode = 'ALLOW_INVALID_DATES';
		CREATE TABLE kinds (ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
		i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(10,2), dec2 DECIMAL(20,0), dec3 DECIMAL(65,30),
		dt DATE, zd DATE, bad DATE, dtm DATETIME(6), ts TIMESTAMP(3) NULL, zts DATETIME, tm TIME(6), y YEAR, b1 BIT(1), b12 BIT(12),
		bl BLOB, vb VARBINARY(8), ch CHAR(3), vc VARCHAR(20), tx TEXT, en ENUM('a','b'), st SET('x','y'), js JSON, nul INT, u UUID, ip INET6);
		INSERT INTO kinds VALUES (-128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
		18446744073709551615, 1.5, 2.25, 12345678.91, 12345678901234567890, 0.000000000000000000000000000001,
		'2026-03-01', '0000-00-00', '2026-02-30', '2026-03-01 12:30:00.250000', '2026-03-01 12:30:00.125', '0000-00-00 00:00:00',
		'-838:59:59.5', 2026, b'1', b'101010101010', x'00ff10', x'cafe', 'ab', 'Île €', 'long text', 'b', 'x,y', '{"k": [1, 2]}', NULL,
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '::1')`)
	_, recs, err := query(t, src, "SELECT * FROM kinds", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rec := recs[0]
	// The text protocol, for a statement the server cannot prepare, reads
	// the same values.
	text := textQuery(t, src.(*mySource), "SELECT * FROM kinds")
	for i := range rec.Schema().Fields() {
		if b, tx := rec.Column(i).String(), text.Column(i).String(); b != tx || !arrow.TypeEqual(rec.Column(i).DataType(), text.Column(i).DataType()) {
			t.Errorf("%s: binary protocol %s, text %s", rec.Schema().Field(i).Name, b, tx)
		}
	}
	want := map[string]string{"ti": "int8 -128", "tu": "uint8 255", "si": "int16 -32768", "su": "uint16 65535", "mi": "int32 -8388608",
		"mu": "uint32 16777215", "i": "int32 -2147483648", "iu": "uint32 4294967295", "bi": "int64 -9223372036854775808",
		"bu": "uint64 18446744073709551615", "f": "float32 1.5", "d": "float64 2.25", "dec1": "decimal(10, 2) 12345678.91",
		"dec2": "decimal(20, 0) 12345678901234567890", "dec3": "decimal256(65, 30) 1e-30",
		"dt": "date32 2026-03-01", "zd": "date32 (null)", "bad": "date32 (null)", "dtm": "timestamp[us] 2026-03-01 12:30:00.25",
		"ts": "timestamp[us, tz=UTC] 2026-03-01 12:30:00.125", "zts": "timestamp[us] (null)", "tm": "duration[us] -838h59m59.5s",
		"y": "int16 2026", "b1": "uint64 1", "b12": "uint64 2730", "bl": "binary 00ff10", "vb": "binary cafe", "ch": "utf8 ab",
		"vc": "utf8 Île €", "tx": "utf8 long text", "en": "utf8 b", "st": "utf8 x,y", "js": `utf8 {"k": [1, 2]}`, "nul": "int32 (null)",
		"u": "utf8 a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "ip": "utf8 ::1"}
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		got := col.ValueStr(0)
		if !col.IsNull(0) {
			switch c := col.(type) {
			case *array.Date32:
				got = c.Value(0).ToTime().Format("2006-01-02")
			case *array.Timestamp:
				got = c.Value(0).ToTime(arrow.Microsecond).Format("2006-01-02 15:04:05.999999")
			case *array.Duration:
				got = (arrowDuration(c.Value(0))).String()
			case *array.Binary:
				got = strings.TrimSpace(strings.ToLower(hexOf(c.Value(0))))
			}
		}
		if w, ok := want[f.Name]; !ok || f.Type.String()+" "+got != w {
			t.Errorf("%s: %s %s, want %s", f.Name, f.Type, got, w)
		}
	}
}

func arrowDuration(d arrow.Duration) time.Duration { return time.Duration(d) * time.Microsecond }

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// textQuery runs query by the text protocol, as for a statement the server
// cannot prepare.
func textQuery(t *testing.T, s *mySource, query string) arrow.RecordBatch {
	t.Helper()
	ctx := context.Background()
	c, err := s.connLocked(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.c.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var buf bytes.Buffer
	if _, err := s.stream(rows, Limits{}.withDefaults(), &buf, func() {}); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(&buf)
	if err != nil || !r.Next() {
		t.Fatalf("%v", err)
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec
}
