package demo

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/agent"
)

// Script is the demo's model: two cells of real pandas and matplotlib,
// then an answer made of what they returned. Any other question gets an
// honest "I am a script" and how to connect a model.
type Script struct {
	// Dir is the host folder holding the budget files, for the closing
	// hint; set once the session's folder is known.
	Dir string
}

var _ agent.Script = (*Script)(nil)

const loadCode = `import pandas as pd

q1 = pd.read_csv("/data/budget_q1.csv")
q2 = pd.read_csv("/data/budget_q2.csv")
v = q1.merge(q2, on=["department", "category"], suffixes=("_q1", "_q2"))
v = v.rename(columns={"budget_q1": "q1", "budget_q2": "q2"})
v["change"] = v.q2 - v.q1
v["change %"] = (v.change / v.q1 * 100).round(1)
v.to_csv("/output/variance.csv", index=False)
v`

const reportCode = `import matplotlib.pyplot as plt

by = v.groupby("department")[["q1", "q2", "change"]].sum()
by["change %"] = (by.change / by.q1 * 100).round(1)
by = by.sort_values("change")
ax = by["change"].plot.barh(color=["#c0504d" if c < 0 else "#4f81bd" for c in by["change"]])
ax.axvline(0, color="grey", linewidth=0.8)
ax.set_title("Budget change by department, Q2 against Q1")
ax.set_xlabel("change")
plt.tight_layout()

t1, t2 = v.q1.sum(), v.q2.sum()
up, down = v.loc[v.change.idxmax()], v.loc[v.change.idxmin()]
print(f"Total: Q1 {t1:,} to Q2 {t2:,}, {t2 - t1:+,} ({(t2 - t1) / t1:+.1%})")
print(f"Largest increase: {up.department}, {up.category} {up.change:+,}")
print(f"Largest cut: {down.department}, {down.category} {down.change:+,}")
by`

// Reply is the next step of the report, from the cells' results so far.
func (s *Script) Reply(t agent.ScriptTurn) agent.ScriptReply {
	if strings.TrimSpace(t.Prompt) != Question {
		return agent.ScriptReply{Text: s.notScripted(t.Prompt)}
	}
	switch {
	case len(t.Results) == 0:
		return agent.ScriptReply{
			Text: "I'll load both budget files and line them up by department and category, with the change in money and in percent.",
			Code: loadCode,
		}
	case failed(t.Results[len(t.Results)-1]):
		return agent.ScriptReply{Text: "The cell failed (its error is above), so this demo has no numbers to report. Its model is a script and cannot try another way.\n\n" + s.connect()}
	case len(t.Results) == 1:
		text := "The two files line up by department and category."
		if rows := tableRows(sections(t.Results[0])["value"]); rows != "" {
			text = fmt.Sprintf("The two files line up: %s by department and category.", rows)
		}
		return agent.ScriptReply{Text: text + " Now the totals by department, the largest moves, and a chart of the change.", Code: reportCode}
	}
	return agent.ScriptReply{Text: s.answer(sections(t.Results[1]))}
}

// answer is the report: the lines the second cell printed, its table as
// Markdown, and what this demo was.
func (s *Script) answer(sec map[string]string) string {
	var b strings.Builder
	b.WriteString("**Budget Q2 against Q1**, as the two cells computed it:\n\n")
	for _, l := range strings.Split(sec["stdout"], "\n") {
		if l = strings.TrimSpace(l); l != "" {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if t := markdownTable(sec["value"]); t != "" {
		b.WriteString("\n" + t)
	}
	b.WriteString("\nThe chart shows the change by department; every department and category, with its change, is in `variance.csv` in the session folder.\n\n")
	b.WriteString("*This was a demo: the model's side was scripted (no model was asked, no key used, nothing left this machine); the code ran for real in the sandbox.* ")
	b.WriteString(s.connect())
	return b.String()
}

func (s *Script) notScripted(prompt string) string {
	p := strings.Join(strings.Fields(prompt), " ")
	if r := []rune(p); len(r) > 80 {
		p = string(r[:79]) + "…"
	}
	return fmt.Sprintf("I am quarry's demo, and my side of this chat is a script: it runs only the variance report it was written for, so it cannot answer “%s”.\n\n", p) + s.connect()
}

// connect says how to go on with a real model.
func (s *Script) connect() string {
	var b strings.Builder
	b.WriteString("To ask your own questions, connect a model:\n\n")
	// No code span: a placeholder key must end in "..." for the masking
	// of text that leaves quarry to let it through (secret.headers).
	b.WriteString("- OpenAI: export OPENAI_API_KEY=sk-... (and `--model gpt-4.1-mini`, or `QUARRY_MODEL`)\n")
	b.WriteString("- another OpenAI-compatible service: `export OPENAI_BASE_URL=https://host/v1`, plus its key in `OPENAI_API_KEY`\n")
	b.WriteString("- a local Ollama: `ollama pull qwen2.5-coder:7b` with `ollama serve` running; quarry finds it when no key is set\n")
	b.WriteString("- named profiles: `quarry config init` writes a commented config file; `quarry config check` says whether a model is set up\n")
	if s.Dir != "" {
		q1, q2 := filepath.Join(s.Dir, Names[0]), filepath.Join(s.Dir, Names[1])
		fmt.Fprintf(&b, "\nThen ask about these files yourself: `quarry %s %s`, or about your own.\n", shellWord(q1), shellWord(q2))
	}
	return b.String()
}

// failed tells a cell that ended in an error from one that ran.
func failed(result string) bool {
	_, bad := sections(result)["error"]
	return bad
}

// sections splits what the model is told of a cell ("[stdout]\n...\n[value]\n...")
// by section name.
func sections(result string) map[string]string {
	out := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name != "" {
			out[name] = strings.Join(body, "\n")
		}
	}
	for _, l := range strings.Split(result, "\n") {
		if n, ok := sectionName(l); ok {
			flush()
			name, body = n, nil
			continue
		}
		body = append(body, l)
	}
	flush()
	return out
}

func sectionName(line string) (string, bool) {
	if !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]") {
		return "", false
	}
	n := line[1 : len(line)-1]
	for _, known := range []string{"stdout", "stderr", "value", "error", "note", "notes"} {
		if n == known {
			return n, true
		}
	}
	if strings.HasPrefix(n, "figures") || strings.HasPrefix(n, "files") {
		return n, true
	}
	return "", false
}

// tableRows is "10 rows" from a table's first line ("table: 10 rows × 5
// columns"), or "".
func tableRows(value string) string {
	first, _, _ := strings.Cut(value, "\n")
	rest, ok := strings.CutPrefix(first, "table: ")
	if !ok {
		return ""
	}
	rows, _, _ := strings.Cut(rest, " × ")
	return rows
}

// shellWord quotes a path for a shell when it needs it.
func shellWord(s string) string {
	if strings.ContainsAny(s, " '\"$`\\!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
