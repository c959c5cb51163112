package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeAttackClasses(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"osc52 clipboard bel", "a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"},
		{"osc52 clipboard st", "a\x1b]52;c;cm0gLXJmIH4=\x1b\\b", "ab"},
		{"osc8 link", "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"osc0 title", "\x1b]0;pwned\x07x", "x"},
		{"osc2 title", "\x1b]2;pwned\x1b\\x", "x"},
		{"osc1 icon", "\x1b]1;pwned\x07x", "x"},
		{"osc unterminated", "ok\x1b]52;c;AAAA", "ok"},
		{"osc aborted by CAN", "a\x1b]0;t\x18b", "ab"},
		{"osc ended by new esc", "a\x1b]0;t\x1b[2Jb", "ab"},
		{"dcs", "a\x1bP+q544e\x1b\\b", "ab"},
		{"dcs decrqss", "a\x1bP$qm\x1b\\b", "ab"},
		{"apc kitty graphics", "a\x1b_Ga=T,f=100;AAAA\x1b\\b", "ab"},
		{"pm", "a\x1b^secret\x1b\\b", "ab"},
		{"sos", "a\x1bXsecret\x1b\\b", "ab"},
		{"sgr colour", "\x1b[31mred\x1b[0m", "red"},
		{"sgr truecolor", "\x1b[38;2;1;2;3mx\x1b[m", "x"},
		{"clear screen", "\x1b[2J\x1b[Hx", "x"},
		{"cursor moves", "a\x1b[10A\x1b[5;5H\x1b[3Cb", "ab"},
		{"erase line", "a\x1b[2Kb", "ab"},
		{"device status report", "a\x1b[6nb", "ab"},
		{"device attributes", "a\x1b[cb\x1b[>0c", "ab"},
		{"title report", "a\x1b[21tb\x1b[20t", "ab"},
		{"window ops", "a\x1b[8;100;100tb", "ab"},
		{"private modes", "a\x1b[?1049h\x1b[?25lb\x1b[?1000h", "ab"},
		{"bracketed paste markers", "a\x1b[200~rm -rf /\x1b[201~b", "arm -rf /b"},
		// A C1 string control goes alone: what follows it is plain text once
		// it is gone. A C1 CSI is short and goes whole, as in a terminal.
		{"c1 csi", "a\u009b2Jb", "ab"},
		{"c1 osc", "a\u009d0;t\u009cb", "a0;tb"},
		{"c1 dcs", "a\u0090x\u009cb", "axb"},
		{"c1 apc", "a\u009fx\u009cb", "axb"},
		{"c1 in mojibake", "Stra\u0090e 12,50 \u0090\nK\u009dln 3,00", "Strae 12,50 \nKln 3,00"},
		{"c1 others", "a\u0085\u0084\u008db", "ab"},
		{"raw 8-bit csi", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"c0 controls", "a\x00\x01\x07\x08\x0b\x0c\x0e\x1f\x7fb", "ab"},
		{"lone esc end", "ab\x1b", "ab"},
		{"esc reset", "a\x1bcb", "ab"},
		{"esc save cursor", "a\x1b7b\x1b8", "ab"},
		{"esc charset", "a\x1b(0b\x1b(B", "ab"},
		{"esc decaln", "a\x1b#8b", "ab"},
		{"esc before unicode", "a\x1bé", "aé"},
		{"invalid utf8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"bidi override", "file\u202egnp.exe", "filegnp.exe"},
		{"kitty placeholder", "a\U0010EEEE\u0305\u0305b", "a\u0305\u0305b"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"progress bar", "10%\r50%\r100%\ndone", "100%\ndone"},
		{"trailing cr", "50%\r", "50%"},
		{"double cr lf", "x\r\r\n", "x\n"},
		{"unicode kept", "naïve 東京 🚀", "naïve 東京 🚀"},
		{"csi cut by control", "a\x1b[12\nb", "a\nb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Sanitize(c.in)
			if got != c.want {
				t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
			}
			assertClean(t, got, false)
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"report.csv", "report.csv"},
		{"a\nb\tc\rd", "a b c d"},
		{"\x1b]8;;x\x07name\x1b]8;;\x07.png", "name.png"},
		{"col\x1b[31m_red", "col_red"},
		{"x\u202ey", "xy"},
	}
	for _, c := range cases {
		got := SanitizeLine(c.in)
		if got != c.want {
			t.Errorf("SanitizeLine(%q) = %q, want %q", c.in, got, c.want)
		}
		assertClean(t, got, true)
	}
}

func TestSanitizePlainIsUnchanged(t *testing.T) {
	s := strings.Repeat("plain ascii line\n", 10)
	if got := Sanitize(s); got != s {
		t.Fatalf("plain text changed: %q", got)
	}
}

// assertClean fails when s holds anything a terminal would act on.
func assertClean(t testing.TB, s string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8 in %q", s)
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if oneLine {
				t.Fatalf("line output holds %q: %q", r, s)
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			t.Fatalf("control %U in %q", r, s)
		case isBidiControl(r), r == kittyPlaceholder:
			t.Fatalf("%U in %q", r, s)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	seeds := []string{
		"", "plain", "\x1b]52;c;AAAA\x07", "\x1b[2J", "\u009b31m", "\x1bP\x1b\\",
		"a\rb\r\nc", "\xff\xfe", "\x1b", "\x1b[", "\x1b]", "\u009d", "\x1b[200~x\x1b[201~",
		"\x1b_Ga=T;AAAA\x1b\\", "\x1b(B", "tab\there",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		assertClean(t, out, false)
		line := SanitizeLine(in)
		assertClean(t, line, true)
		if Sanitize(out) != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, Sanitize(out))
		}
	})
}

func BenchmarkSanitize1MB(b *testing.B) {
	chunk := "row 1, 2.5, naïve \x1b[31mred\x1b[0m \x1b]52;c;AAAA\x07 progress 10%\r20%\n"
	in := strings.Repeat(chunk, (1<<20)/len(chunk))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		Sanitize(in)
	}
}

func BenchmarkSanitize1MBPlain(b *testing.B) {
	in := strings.Repeat("row 1, 2.5, plain ascii output of a cell\n", (1<<20)/41)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Sanitize(in)
	}
}
