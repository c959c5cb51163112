package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// packedSensors writes a sparse sensor log (ts, sensor, value, three empty
// fields, state; one value in 50 set) of unpacked bytes, as gzip (one
// stream), zip (one deflate stream), bzip2 and xz (concatenated streams of
// one 8 MiB block, which gzip's trailer and xz's index do not describe),
// and prints each file's unpacked size and line count.
const packedSensors = `import os, gzip, bz2, lzma, zipfile, zlib, random
os.makedirs('/output/packed', exist_ok=True)
r = random.Random(7)
lines, n, i = [], 0, 0
while n < 8 << 20:
    l = '2024-01-%%02d,sensor-%%02d,%%d,,,,ok\n' %% (1 + i // 2000000 %% 28, i %% 64, r.randint(0, 99999) if i %% 50 == 0 else 0)
    lines.append(l); n += len(l); i += 1
block = ''.join(lines).encode()
head = b'ts,sensor,value,a,b,c,state\n'
reps = %d // len(block)
unpacked, nlines = len(head) + reps * len(block), 1 + reps * len(lines)
o = '/output/packed/sensors.csv'
with open(o + '.gz', 'wb') as f:
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    f.write(z.compress(head))
    for _ in range(reps):
        f.write(z.compress(block))
    f.write(z.flush())
with zipfile.ZipFile('/output/packed/sensors.zip', 'w', zipfile.ZIP_DEFLATED) as zf:
    with zf.open('sensors.csv', 'w', force_zip64=True) as f:
        f.write(head)
        for _ in range(reps):
            f.write(block)
for ext, comp in (('.bz2', bz2.compress), ('.xz', lzma.compress)):
    c = comp(block)
    with open(o + ext, 'wb') as f:
        f.write(comp(head))
        for _ in range(reps):
            f.write(c)
print('UNPACKED', unpacked, 'LINES', nlines)
`

// A compressed CSV that unpacks to 50 to 700 times its size is judged by
// what it unpacks to: sampled like a large plain file, flagged large, with
// its unpacked size and row count estimated, and sql() pointed to where
// DuckDB reads the format. Profiling all four stays within a generous time
// each and the kernel's memory peak within 300 MiB (the benchmark times it).
func TestProfileCompressedFilesByUnpackedSize(t *testing.T) {
	if testing.Short() {
		t.Skip("makes four files of 512 MiB unpacked")
	}
	const unpackedTarget = 512 << 20
	e := sandboxtest.Engine(t)
	// The files are made in a session of their own: the one that profiles
	// them measures its kernel's peak memory.
	maker := sandboxtest.Session(t, e, sandbox.Options{Timeout: 5 * time.Minute})
	res := cell(t, maker, fmt.Sprintf(packedSensors, unpackedTarget))
	cellOK(t, res)
	m := regexp.MustCompile(`UNPACKED (\d+) LINES (\d+)`).FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("no sizes printed: %q", res.Stdout)
	}
	unpacked, _ := strconv.ParseInt(m[1], 10, 64)
	lines, _ := strconv.Atoi(m[2])
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = f.Path
		if ratio := float64(unpacked) / float64(f.Size); ratio < 50 || ratio > 700 {
			t.Fatalf("%s unpacks to %.0f times its size; the test wants 50 to 700", f.Name, ratio)
		}
	}

	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 1 << 30}, Timeout: time.Minute})
	// bzip2 hands out its output a 900 kB block at a time, so its estimate
	// is the coarsest, the more so on a loaded machine.
	for _, c := range []struct {
		name, sql string
		within    float64
	}{
		{"packed/sensors.csv.gz", "sql()", 0.25}, {"packed/sensors.zip", "cannot read zip", 0.25},
		{"packed/sensors.csv.bz2", "cannot read bz2", 0.4}, {"packed/sensors.csv.xz", "cannot read xz", 0.25},
	} {
		near := func(got, want int64) bool {
			return float64(got) > float64(want)*(1-c.within) && float64(got) < float64(want)*(1+c.within)
		}
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			p, err := s.AddFile(ctx, files[c.name])
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("attached in %s: unpacked %d (truth %d), rows %d (truth %d)", time.Since(t0).Round(time.Millisecond),
				p.Unpacked, unpacked, p.Rows, lines-1)
			if p.Error != "" || p.Kind != "csv" || !p.Large || !near(p.Unpacked, unpacked) || !near(int64(p.Rows), int64(lines-1)) ||
				len(p.Columns) != 7 || p.Read.Python(p.Path) == "" {
				t.Fatalf("profile: error %q, large %v, unpacked %d (truth %d), rows %d (truth %d), %d columns, read %v",
					p.Error, p.Large, p.Unpacked, unpacked, p.Rows, lines-1, len(p.Columns), p.Read)
			}
			if !hasNote(p, "sampled") || !hasNote(p, c.sql) {
				t.Errorf("notes %q: want the sample said and %q", p.Notes, c.sql)
			}
		})
	}
	res = cell(t, s, "import resource\nresource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024")
	cellOK(t, res)
	t.Logf("kernel peak RSS after the four profiles: %s MiB", res.Value.Repr)
	if peak, err := strconv.Atoi(strings.TrimSpace(res.Value.Repr)); err != nil || peak > 300 {
		t.Errorf("kernel peak RSS %s MiB after profiling, want at most 300", res.Value.Repr)
	}
	// The pointer to sql() works on the gzip file as it is.
	res = cell(t, s, "int(sql(\"SELECT count(*) AS n FROM read_csv('/data/sensors.csv.gz')\").n[0])")
	cellOK(t, res)
	if res.Value.Repr != strconv.Itoa(lines-1) {
		t.Errorf("sql() counts %s rows, want %d", res.Value.Repr, lines-1)
	}
}

// wideCSV is a genomics-style matrix: a gene column and width-1 sample
// columns of small counts.
func wideCSV(width, rows int) []byte {
	var b strings.Builder
	b.WriteString("gene")
	for j := 1; j < width; j++ {
		fmt.Fprintf(&b, ",s%d", j)
	}
	b.WriteByte('\n')
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "g%d", i)
		for j := 1; j < width; j++ {
			b.WriteByte(',')
			b.WriteByte(byte('0' + (i*j)%10))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// A very wide table is profiled from its first columns in bounded time: the
// profile says how many columns there are and lists the first ones, and
// its read call loads every column.
func TestProfileWideTables(t *testing.T) {
	s := sharedSession(t)
	for _, c := range []struct{ width, rows int }{{1000, 300}, {20000, 40}, {300000, 5}} {
		t.Run(strconv.Itoa(c.width), func(t *testing.T) {
			host := filepath.Join(t.TempDir(), fmt.Sprintf("matrix%d.csv", c.width))
			if err := os.WriteFile(host, wideCSV(c.width, c.rows), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			p, err := s.AddFile(ctx, host)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("attached in %s", time.Since(t0).Round(time.Millisecond))
			if p.Error != "" || p.Rows != c.rows || p.ColumnCount != c.width || len(p.Columns) != 200 ||
				p.Columns[0].Name != "gene" || p.Columns[199].Name != "s199" || len(p.Head) == 0 || len(p.Head[0]) != 200 {
				t.Fatalf("error %q, rows %d, column count %d, %d columns listed", p.Error, p.Rows, p.ColumnCount, len(p.Columns))
			}
			if !hasNote(p, fmt.Sprintf("has %d columns", c.width)) || !hasNote(p, "first 200") {
				t.Errorf("notes %q", p.Notes)
			}
			if c.width > 20000 {
				return // pandas itself takes a while for all columns
			}
			res := cell(t, s, "_df = "+p.Read.Python(p.Path)+"\n(_df.shape, int(_df.iloc[:, -1].sum()))")
			cellOK(t, res)
			sum := 0
			for i := 0; i < c.rows; i++ {
				sum += i * (c.width - 1) % 10
			}
			if want := fmt.Sprintf("((%d, %d), %d)", c.rows, c.width, sum); res.Value.Repr != want {
				t.Errorf("read call gives %s, want %s", res.Value.Repr, want)
			}
		})
	}
}

// Wide Parquet files and sheets state their column count as well.
func TestProfileWideBinaryAndSheets(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, `import os, pandas as pd
os.makedirs('/output/wide', exist_ok=True)
df = pd.DataFrame({'c%d' % j: [j, j + 1] for j in range(500)})
df.to_parquet('/output/wide/matrix.parquet')
df.to_excel('/output/wide/matrix.xlsx', index=False)
`)
	for _, name := range []string{"wide/matrix.parquet", "wide/matrix.xlsx"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := s.AddFile(ctx, files[name])
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if p.Error != "" || p.ColumnCount != 500 || len(p.Columns) != 200 {
			t.Errorf("%s: error %q, column count %d, %d listed", name, p.Error, p.ColumnCount, len(p.Columns))
		}
		if len(p.Sheets) > 0 && p.Sheets[0].ColumnCount != 500 {
			t.Errorf("%s: sheet column count %d", name, p.Sheets[0].ColumnCount)
		}
	}
}
