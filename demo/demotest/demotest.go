// Package demotest holds what the demo's end-to-end tests (the chat in
// tmux, headless) share: the variance report computed from the files the
// demo wrote, independently of the kernel, and a loopback listener that
// counts the connections quarry offers it.
package demotest

import (
	"encoding/csv"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Line is one account of the demo's files, summed over the months, as a
// variance report must show it.
type Line struct {
	Account, Name            string
	Revenue                  bool // accounts 4000–4999; the rest are costs
	Actual, Budget, Variance float64
	Pct                      float64 // of the budget, in percent; NaN without one
	Better, Material         bool
}

// Variance is the demo's variance report computed here, independently of
// the kernel, from the files the demo wrote into dir: the lines in the
// files' order, and the profit (revenue less costs).
func Variance(t testing.TB, dir string) (lines []Line, profit Line) {
	t.Helper()
	sums := [2]map[string]float64{{}, {}}
	var order []Line
	for i, name := range []string{"actuals_q2.csv", "budget_q2.csv"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the demo's file: %v", err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rows[1:] {
			for _, cell := range r[2:] {
				n, err := strconv.ParseFloat(cell, 64)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				sums[i][r[0]] += n
			}
			if i == 0 {
				order = append(order, Line{Account: r[0], Name: r[1], Revenue: strings.HasPrefix(r[0], "4")})
			}
		}
	}
	profit = Line{Name: "Total", Revenue: true}
	for _, l := range order {
		l.Actual, l.Budget = sums[0][l.Account], sums[1][l.Account]
		l.Variance = l.Actual - l.Budget
		l.Pct = math.NaN()
		if l.Budget != 0 {
			l.Pct = l.Variance / math.Abs(l.Budget) * 100
		}
		l.Better = (l.Variance > 0) == l.Revenue
		l.Material = l.Variance != 0 && (l.Budget == 0 || math.Abs(l.Pct) >= 5)
		sign := map[bool]float64{true: 1, false: -1}[l.Revenue]
		profit.Actual += sign * l.Actual
		profit.Budget += sign * l.Budget
		lines = append(lines, l)
	}
	profit.Variance = profit.Actual - profit.Budget
	profit.Pct = profit.Variance / math.Abs(profit.Budget) * 100
	profit.Better, profit.Material = profit.Variance > 0, true
	return lines, profit
}

// Rows are lines the demo's answer must hold, as its cell prints them:
// the profit, then each material line, largest first.
func Rows(t testing.TB, dir string) []string {
	t.Helper()
	lines, p := Variance(t, dir)
	want := []string{fmt.Sprintf("Profit: actual %s against budget %s: %s (%+.1f%%), %s", money(p.Actual, false),
		money(p.Budget, false), money(p.Variance, true), p.Pct, effect(p))}
	var material []Line
	for _, l := range lines {
		if l.Material {
			material = append(material, l)
		}
	}
	sort.SliceStable(material, func(i, j int) bool { return math.Abs(material[i].Variance) > math.Abs(material[j].Variance) })
	for _, l := range material {
		pct := fmt.Sprintf("%+.1f%%", l.Pct)
		if math.IsNaN(l.Pct) {
			pct = "no budget"
		}
		want = append(want, fmt.Sprintf("%s %s: %s (%s), %s", l.Account, l.Name, money(l.Variance, true), pct, effect(l)))
	}
	return want
}

func effect(l Line) string {
	if l.Better {
		return "better"
	}
	return "worse"
}

// money is Python's f"{x:,.2f}" (with sign, "{x:+,.2f}").
func money(x float64, sign bool) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	s = whole + "." + frac
	switch {
	case x < 0:
		return "-" + s
	case sign:
		return "+" + s
	}
	return s
}

// Watch is a loopback listener that counts the connections it
// is offered; it answers none.
func Watch(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String(), func() int { return int(n.Load()) }
}

// NoNetworkEnv sends every way out quarry has without a model setting to
// addr: the Ollama probe and, unless the engine itself is reached over
// TCP, the HTTP proxies.
func NoNetworkEnv(addr string) []string {
	env := []string{"QUARRY_OLLAMA_HOST=" + addr}
	if h := os.Getenv("DOCKER_HOST"); h == "" || strings.HasPrefix(h, "unix://") {
		env = append(env, "HTTP_PROXY="+addr, "HTTPS_PROXY="+addr, "http_proxy="+addr, "https_proxy="+addr)
	}
	return env
}

// Driver is one member's part of the explained line's variance.
type Driver struct {
	Dimension, Member string
	Variance          float64
}

// Explained is the demo's follow-up computed here from the ledger it
// shipped: the cost line most over budget (a material one), and each
// vendor's and department's part of its variance (its own actual minus
// its own budget), largest first, the three largest and the rest as one
// "Other (n members)".
func Explained(t testing.TB, dir string) (Line, []Driver) {
	t.Helper()
	lines, _ := Variance(t, dir)
	var worst *Line
	for i, l := range lines {
		if !l.Revenue && l.Material && l.Variance > 0 && (worst == nil || l.Variance > worst.Variance) {
			worst = &lines[i]
		}
	}
	if worst == nil {
		t.Fatal("the demo's files have no cost line over budget")
	}
	f, err := os.Open(filepath.Join(dir, "ledger_q2.csv"))
	if err != nil {
		t.Fatalf("the demo's ledger: %v", err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("the demo's ledger: %v", err)
	}
	var out []Driver
	for _, dim := range []struct {
		name string
		col  int
	}{{"vendor", 4}, {"department", 5}} {
		cents := map[string]int64{}
		var order []string
		for _, r := range rows[1:] {
			if r[2] != worst.Account {
				continue
			}
			x, err := strconv.ParseFloat(r[7], 64)
			if err != nil {
				t.Fatalf("the demo's ledger: %v", err)
			}
			c := int64(math.Round(x * 100))
			if r[6] == "Budget" {
				c = -c
			}
			if _, ok := cents[r[dim.col]]; !ok {
				order = append(order, r[dim.col])
			}
			cents[r[dim.col]] += c
		}
		sort.SliceStable(order, func(i, j int) bool { return abs64(cents[order[i]]) > abs64(cents[order[j]]) })
		var rest int64
		for i, m := range order {
			if i < 3 {
				out = append(out, Driver{dim.name, m, float64(cents[m]) / 100})
			} else {
				rest += cents[m]
			}
		}
		if len(order) > 3 {
			out = append(out, Driver{dim.name, fmt.Sprintf("Other (%d members)", len(order)-3), float64(rest) / 100})
		}
	}
	return *worst, out
}

// Drivers are the lines the demo's follow-up must print: the explained
// line, then a line per dimension with each member's part and share.
func Drivers(t testing.TB, dir string) []string {
	t.Helper()
	worst, drivers := Explained(t, dir)
	want := []string{fmt.Sprintf("Why is %s %s over budget? %s against budget:", worst.Account, worst.Name, money(worst.Variance, true))}
	by := map[string][]string{}
	var dims []string
	for _, d := range drivers {
		if by[d.Dimension] == nil {
			dims = append(dims, d.Dimension)
		}
		share := strconv.FormatFloat(d.Variance/worst.Variance*100, 'f', 0, 64)
		by[d.Dimension] = append(by[d.Dimension], fmt.Sprintf("%s %s (%s%%)", d.Member, money(d.Variance, true), share))
	}
	for _, dim := range dims {
		want = append(want, "by "+dim+": "+strings.Join(by[dim], "; "))
	}
	return want
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
