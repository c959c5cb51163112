// Package demotest holds what the demo's end-to-end tests (the chat in
// tmux, headless) share: the report's lines computed from the files the
// demo wrote, and a loopback listener that counts the connections quarry
// offers it.
package demotest

import (
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Budgets are the budgets of each department in the two files the demo
// wrote into dir, and the files' totals.
func Budgets(t *testing.T, dir string) (q1, q2 map[string]int, total1, total2 int) {
	t.Helper()
	var sums [2]map[string]int
	var totals [2]int
	for i, name := range []string{"budget_q1.csv", "budget_q2.csv"} {
		sums[i] = map[string]int{}
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
			n, err := strconv.Atoi(r[2])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sums[i][r[0]] += n
			totals[i] += n
		}
	}
	return sums[0], sums[1], totals[0], totals[1]
}

// Rows are lines the report must hold, computed here from the files the
// demo wrote into dir: the total line and a Markdown row per department.
func Rows(t *testing.T, dir string) []string {
	t.Helper()
	q1, q2, t1, t2 := Budgets(t, dir)
	want := []string{fmt.Sprintf("Total: Q1 %s to Q2 %s", grouped(t1), grouped(t2))}
	var depts []string
	for d := range q1 {
		depts = append(depts, d)
	}
	sort.Strings(depts)
	for _, d := range depts {
		want = append(want, fmt.Sprintf("| %s | %s | %s | %s |", d, grouped(q1[d]), grouped(q2[d]), grouped(q2[d]-q1[d])))
	}
	return want
}

func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
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
