package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
)

func TestCompletionAndManPage(t *testing.T) {
	isolateConfig(t)
	for shell, want := range map[string]string{
		"zsh": "#compdef quarry", "bash": "bash completion V2 for quarry",
		"fish": "fish completion for quarry", "powershell": "powershell completion for quarry",
	} {
		code, out, errOut := runCmd(t, "completion", shell)
		if code != exitOK || !strings.Contains(out, want) || errOut != "" {
			t.Errorf("completion %s: exit %d, stderr %q, stdout starts %q", shell, code, errOut, firstLine(out))
		}
	}
	if code, _, errOut := runCmd(t, "completion", "tcsh"); code != exitUsage || !strings.Contains(errOut, "tcsh") {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCmd(t, "man")
	for _, want := range []string{".TH QUARRY 1", "doctor", "sandbox", `\fB-p, --prompt`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("man: exit %d, lacks %q:\n%.400s", code, want, out)
		}
	}
}

// man shows the description's paragraphs filled, as written: one line of
// the help text is no paragraph of its own.
func TestManPageParagraphs(t *testing.T) {
	nroff := hosttest.Tool(t, "nroff")
	_, page, _ := runCmd(t, "man")
	cmd := exec.Command(nroff, "-man", "-Tutf8")
	cmd.Stdin = strings.NewReader(page)
	cmd.Env = append(os.Environ(), "MANWIDTH=100", "COLUMNS=100")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`.\x08`).ReplaceAllString(string(out), "") // overstrikes
	_, desc, _ := strings.Cut(text, "DESCRIPTION\n")
	first, _, _ := strings.Cut(desc, "With")
	if !strings.Contains(first, "Podman") || strings.Contains(strings.TrimSpace(first), "\n\n") {
		t.Errorf("the description's first paragraph is not one paragraph:\n%s", desc)
	}
	if !strings.Contains(desc, "interrupted.\n\n") {
		t.Errorf("the paragraph break is gone:\n%s", desc)
	}
}

// Help and mistakes piped into a file or a script carry no escapes and no
// trailing blanks.
func TestHelpAndErrorsPlainWhenPiped(t *testing.T) {
	isolateConfig(t)
	for _, args := range [][]string{{"--help"}, {"config", "--help"}, {"sandbox", "build", "--help"}, {"--bogus"}, {"config", "nope"},
		{"completion", "--help"}, {"completion", "bash", "--help"}, {"man", "--help"}} {
		_, out, errOut := runCmd(t, args...)
		if strings.Contains(out+errOut, "\x1b") {
			t.Errorf("quarry %q: escapes when piped: %q", args, out+errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasSuffix(l, " ") {
				t.Errorf("quarry %q: trailing blanks in %q", args, l)
			}
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
