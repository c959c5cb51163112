package config

import (
	"regexp"
	"strings"
	"testing"
)

// BenchmarkMergeFullFile loads a file that sets every setting and three
// profiles: the work done at every start of quarry.
func BenchmarkMergeFullFile(b *testing.B) {
	var body strings.Builder
	re := regexp.MustCompile(`^(\[|[a-z_]+ = )`)
	for _, line := range strings.Split(Template(), "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok && re.MatchString(rest) {
			body.WriteString(rest + "\n")
		}
	}
	dir := b.TempDir()
	path := dir + "/config.toml"
	if err := writeBench(path, body.String()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := merge(Overrides{ConfigPath: path}, env()); err != nil {
			b.Fatal(err)
		}
	}
}
