package source

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

func TestPostgresTypes(t *testing.T) {
	_, src := salesDB(t, sourcetest.Kinds()[0])
	_, recs, err := query(t, src, `SELECT true AS b, 2::int2 AS i2, 3::int4 AS i4, 4::int8 AS i8, 1.5::float4 AS f4, 2.5::float8 AS f8,
		12.25::numeric AS n, 'x'::varchar AS v, 'y'::char(2) AS c, date '2026-03-01' AS d, timestamp '2026-03-01 12:30:00' AS ts,
		timestamptz '2026-03-01 12:30:00+02' AS tz, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '{"k": [1, 2]}'::jsonb AS j,
		ARRAY[1, 2] AS arr, interval '1 day 2 hours' AS iv, NULL::int AS nul, 'infinity'::date AS inf`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rec := recs[0]
	want := map[string]string{"b": "true", "i2": "2", "i4": "3", "i8": "4", "f4": "1.5", "f8": "2.5", "n": "12.25", "v": "x", "c": "y ",
		"d": "2026-03-01", "ts": "2026-03-01 12:30:00", "tz": "2026-03-01 10:30:00Z", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"j": `{"k": [1, 2]}`, "arr": "[1,2]", "nul": "(null)", "inf": "(null)"}
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		got := col.ValueStr(0)
		switch f.Name {
		case "d":
			got = col.(*array.Date32).Value(0).ToTime().Format("2006-01-02")
		case "ts":
			got = col.(*array.Timestamp).Value(0).ToTime(arrow.Microsecond).Format("2006-01-02 15:04:05")
		case "tz":
			got = col.(*array.Timestamp).Value(0).ToTime(arrow.Microsecond).Format("2006-01-02 15:04:05Z")
		case "iv":
			if got == "" || got == "(null)" {
				t.Errorf("interval: %q", got)
			}
			continue
		}
		if w, ok := want[f.Name]; ok && got != w {
			t.Errorf("%s (%s): %q, want %q", f.Name, f.Type, got, w)
		}
	}
}
