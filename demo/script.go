package demo

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/agent"
)

// Script is the demo's model: three cells of real pandas and matplotlib
// (the variance table, the bridge, and the follow-up through explain()),
// then an answer made of what they returned. Any other question gets an
// honest "I am a script" and how to connect a model.
type Script struct {
	// Dir is the host folder holding the budget files, for the closing
	// hint; set once the session's folder is known.
	Dir string
}

var _ agent.Script = (*Script)(nil)

const loadCode = `v = variance("/data/actuals_q2.csv", "/data/budget_q2.csv")
v.to_csv("/output/variance.csv", index=False)
v`

const reportCode = `fig = bridge(v)

lines, total = v.iloc[:-1], v.iloc[-1]
label = lambda r: " ".join(str(r[c]) for c in v.attrs["labels"] if str(r[c]))
print(f"Profit: actual {total.actual:,.2f} against budget {total.budget:,.2f}: {total.variance:+,.2f} ({total.variance_pct:+.1f}%), {total.effect}")
for _, r in lines[lines.material].sort_values("variance", key=abs, ascending=False).iterrows():
    pct = "no budget" if pd.isna(r.variance_pct) else f"{r.variance_pct:+.1f}%"
    print(f"{label(r)}: {r.variance:+,.2f} ({pct}), {r.effect}")`

// followUp is the question a controller asks next, and explainCode its
// cell: the cost line most over budget, drilled down to the ledger, vendor
// by vendor and department by department, against the budget at the same
// detail; each dimension's rows add up to the line's variance.
const followUp = "Which cost is furthest over budget, and why?"

const explainCode = `over = lines[(lines.kind == "cost") & lines.material & (lines.variance > 0)]
if over.empty:
    print("No cost line is over budget by a material amount.")
else:
    worst = over.loc[over.variance.idxmax()]
    e = explain(v, "/data/ledger_q2.csv", lines=worst[v.attrs["labels"][-1]], by=["vendor", "department"], top=3)
    print(f"Why is {label(worst)} over budget? {worst.variance:+,.2f} against budget:")
    for dim, rows in e.groupby("dimension", sort=False):
        print(f"by {dim}: " + "; ".join(f"{r.member} {r.variance:+,.2f} ({r.share:.0%})" for r in rows.itertuples()))`

// Reply is the next step of the report, from the cells' results so far.
func (s *Script) Reply(t agent.ScriptTurn) agent.ScriptReply {
	if strings.TrimSpace(t.Prompt) != Question {
		return agent.ScriptReply{Text: s.notScripted(t.Prompt)}
	}
	switch {
	case len(t.Results) == 0:
		return agent.ScriptReply{
			Text: "I'll compare Q2's actuals with the budget line by line with variance(): revenue above budget is better, a cost above it worse, and a line is material at 5% of its budget.",
			Code: loadCode,
		}
	case failed(t.Results[len(t.Results)-1]):
		return agent.ScriptReply{Text: "The cell failed (its error is above), so this demo has no numbers to report. Its model is a script and cannot try another way.\n\n" + s.connect()}
	case len(t.Results) == 1:
		text := "The two files line up account by account."
		if rows := tableRows(sections(t.Results[0])["value"]); rows != "" {
			text = fmt.Sprintf("The two files line up: %s, the last the bottom line.", rows)
		}
		return agent.ScriptReply{Text: text + " Now the bridge from the budget's profit to the actual's, and the material lines, largest first.", Code: reportCode}
	case len(t.Results) == 2:
		return agent.ScriptReply{
			Text: "The follow-up a controller asks next: " + strings.ToLower(followUp[:1]) + followUp[1:] + " explain() drills its variance down to the ledger (ledger_q2.csv, which holds the budget at the same detail), vendor by vendor and department by department.",
			Code: explainCode,
		}
	}
	return agent.ScriptReply{Text: s.answer(sections(t.Results[1]), sections(t.Results[2]))}
}

// answer is the report: the lines the second cell printed (the bottom
// line, then the material lines), the drivers the third found, and what
// this demo was.
func (s *Script) answer(sec, drivers map[string]string) string {
	var b strings.Builder
	b.WriteString("**Q2 2026, actuals against budget**, as the cells computed it:\n\n")
	printed := strings.Split(strings.TrimSpace(sec["stdout"]), "\n")
	for i, l := range printed {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if i == 1 {
			b.WriteString("\n**Material lines**, largest first:\n\n")
		}
		fmt.Fprintf(&b, "- %s\n", l)
	}
	if why := strings.Split(strings.TrimSpace(drivers["stdout"]), "\n"); why[0] != "" {
		fmt.Fprintf(&b, "\n**%s**\n\n", strings.TrimSpace(why[0]))
		for _, l := range why[1:] {
			if l = strings.TrimSpace(l); l != "" {
				fmt.Fprintf(&b, "- %s\n", l)
			}
		}
	}
	b.WriteString("\nThe bridge above walks from the budget's profit to the actual's, one bar per material line. ")
	b.WriteString("quarry writes the report next: a formatted workbook (report.xlsx) and a PDF (report.pdf) in the session folder, which `/report` in the chat and `--report xlsx,pdf` with -p write for any session.\n\n")
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
		words := make([]string, len(Names))
		for i, n := range Names {
			words[i] = shellWord(filepath.Join(s.Dir, n))
		}
		fmt.Fprintf(&b, "\nThen ask about these files yourself: `quarry %s`, or about your own.\n", strings.Join(words, " "))
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
