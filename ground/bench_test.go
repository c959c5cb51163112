package ground

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// benchInput is a 2,000-word answer over 50 cells whose tables hold 10,000
// values, each cell printing a few lines as well.
func benchInput() Input {
	var srcs []Source
	for c := 1; c <= 50; c++ {
		t := &kernel.Table{IndexName: "region", Rows: 20, Cols: 10}
		for j := 0; j < 10; j++ {
			t.Columns = append(t.Columns, fmt.Sprintf("m%d", j))
			t.Dtypes = append(t.Dtypes, "float64")
		}
		for i := 0; i < 20; i++ {
			t.Index = append(t.Index, fmt.Sprintf("Region %c%d", 'A'+i%26, c))
			row := make([]string, 10)
			for j := range row {
				row[j] = strconv.FormatFloat(float64(c*1000+i*37+j)*1.2345, 'f', -1, 64)
			}
			t.Head = append(t.Head, row)
		}
		srcs = append(srcs, Source{Cell: c, Kind: Table, Table: t},
			Source{Cell: c, Kind: Stdout, Text: fmt.Sprintf("total %d: %.2f\nshare: %.1f%%\n", c, float64(c)*1234.5, float64(c)/3)})
	}
	var b strings.Builder
	words := 0
	for k := 0; words < 2000; k++ {
		c, i, j := 1+k%50, k%20, k%10
		v := float64(c*1000+i*37+j) * 1.2345
		s := fmt.Sprintf("In Region %c%d the measure rose by %s, about %.1fk, while the share was %.1f%% of %d rows. ",
			'A'+i%26, c, groupEN(v), v/1000, float64(c)/3, 20)
		b.WriteString(s)
		words += len(strings.Fields(s))
		if k%6 == 5 {
			b.WriteString("\n\n")
		}
	}
	return Input{Answer: b.String(), Question: "How did the regions do?", Sources: srcs, Thousands: true}
}

func groupEN(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	ip, fp, _ := strings.Cut(s, ".")
	var out []byte
	for i := range ip {
		if i > 0 && (len(ip)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, ip[i])
	}
	return string(out) + "." + fp
}

// BenchmarkCheck is the goal in docs/performance.md: a 2,000-word answer
// against 50 cells holding 10,000 table values in at most 20 ms.
func BenchmarkCheck(b *testing.B) {
	in := benchInput()
	cs := Check(in)
	if len(cs) < 400 || len(Unverified(cs)) > len(cs)/10 {
		b.Fatalf("%d claims, %d unverified: the benchmark answer should quote its sources", len(cs), len(Unverified(cs)))
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}

// BenchmarkCheckTables is BenchmarkCheck's answer with five Markdown
// tables quoting cells' tables, each matched against all 50 tables.
func BenchmarkCheckTables(b *testing.B) {
	in := benchInput()
	var t strings.Builder
	for c := 1; c <= 5; c++ {
		t.WriteString("\n\n| region | m0 | m1 | m2 |\n|---|---|---|---|\n")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&t, "| Region %c%d |", 'A'+i%26, c)
			for j := 0; j < 3; j++ {
				fmt.Fprintf(&t, " %s |", groupEN(float64(c*1000+i*37+j)*1.2345))
			}
			t.WriteString("\n")
		}
	}
	in.Answer += t.String()
	cs := Check(in)
	if u := len(Unverified(cs)); u > len(cs)/10 {
		b.Fatalf("%d claims, %d unverified: the tables should quote their sources", len(cs), u)
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}
