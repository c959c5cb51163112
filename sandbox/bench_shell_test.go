package sandbox_test

import (
	"context"
	"testing"
	"time"
)

// BenchmarkShellLine: a shell line against the Python a model would write
// without one (subprocess, the baseline), each a cell of its own; and a
// cell of 200 lines of Python, to show what reading IPython's syntax costs.
//
//	go test ./sandbox -run '^$' -bench ShellLine -benchtime 50x
func BenchmarkShellLine(b *testing.B) {
	_, s := benchSession(b)
	ctx := context.Background()
	setup, err := s.Exec(ctx, "open('f.csv', 'w').write('a,b\\n1,2\\n' * 100)\nimport subprocess", nil)
	if err != nil || setup.Error != nil {
		b.Fatalf("%v %+v", err, setup.Error)
	}
	long := ""
	for i := range 200 {
		long += "x" + string(rune('a'+i%26)) + " = sum(range(3)) / 2  # a line, 'quoted'\n"
	}
	for _, c := range []struct{ name, code string }{
		{"subprocess-baseline", "print(subprocess.run(['cat', 'f.csv'], capture_output=True, text=True).stdout, end='')"},
		{"bang", "!cat f.csv"},
		{"assign", "x = !cat f.csv"},
		{"bash-cell", "%%bash\ncat f.csv"},
		{"python-200-lines", long},
		{"python-200-lines-one-bang", long + "!true"},
	} {
		b.Run(c.name, func(b *testing.B) {
			samples := make([]time.Duration, 0, b.N)
			for range b.N {
				t0 := time.Now()
				res, err := s.Exec(ctx, c.code, nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%v %+v", err, res.Error)
				}
				samples = append(samples, time.Since(t0))
			}
			reportPercentiles(b, samples)
		})
	}
}
