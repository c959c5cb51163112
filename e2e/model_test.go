package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// What the model server sees and says, end to end: the share setting, an
// answer without the cell it needed, a reply that is not the API's.

// A ledger whose every value is unlike any aggregate of it.
const privateCSV = `booked,client,region,amount
2031-07-14,Capybara Holdings,Zanzibar-Nord,7713.41
2031-08-02,Quixotic Süd GmbH,Yellowknife-Ost,2208.09
2031-09-27,Umbrella Widgets,Xanadu-West,515.37
`

func privateValues() []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(privateCSV), "\n")[1:] {
		out = append(out, strings.Split(line, ",")...)
	}
	return out
}

// With share = "schema" no value of the file reaches the model: not in the
// profile, not in the prompt; the cell prints only aggregates, as the
// model is told to. With "values" they do, which proves the check can fail.
func TestShareSchemaSendsNoValues(t *testing.T) {
	sandboxtest.Engine(t)
	data := filepath.Join(t.TempDir(), "private.csv")
	if err := os.WriteFile(data, []byte(privateCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	code := `import pandas as pd
df = pd.read_csv("/data/private.csv")
print(f"SUM={df['amount'].sum():.2f} N={len(df)} REGIONS={df['region'].nunique()}")`
	leaked := func(share string) (map[string]bool, []openaitest.Request) {
		srv := openaitest.New(t, openaitest.ToolCalls(code))
		srv.Handle(func(req openaitest.Request) openaitest.Reply {
			return openaitest.Text("Aggregates: " + strings.TrimSpace(req.LastToolResult()))
		})
		r := newRun(t, srv.URL, "-p", "total amount?", "--json", "--share", share, data)
		if c := r.exec(2 * time.Minute); c != 0 {
			t.Fatalf("share %s: exit %d\n%s", share, c, r.stdout.String())
		}
		if !strings.Contains(r.stdout.String(), "SUM=10436.87 N=3 REGIONS=3") {
			t.Fatalf("share %s: the cell did not run:\n%s", share, r.stdout.String())
		}
		found := map[string]bool{}
		reqs := srv.ChatRequests()
		for _, req := range reqs {
			var body any
			json.Unmarshal(req.Body, &body)
			text := string(req.Body) + fmt.Sprint(body)
			for _, v := range privateValues() {
				if strings.Contains(text, v) {
					found[v] = true
				}
			}
		}
		return found, reqs
	}
	found, reqs := leaked("schema")
	if len(found) > 0 {
		t.Errorf("share = schema: cell values reached the model: %v", found)
	}
	if len(reqs) != 2 || !strings.Contains(reqs[0].System(), "only the structure") || !strings.Contains(reqs[0].System(), "amount: float64") {
		t.Errorf("the schema prompt is not what was sent:\n%s", reqs[0].System())
	}
	if found, _ := leaked("values"); !found["Capybara Holdings"] {
		t.Errorf("share = values sent no example value (the check above proves nothing): %v", found)
	}
}

// A call of a tool that does not exist, and an answer with no cell: exit 0
// still (there is an answer), but stderr and --json say it is incomplete.
func TestAnswerWithoutTheCellItNeeded(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t,
		openaitest.Call("", openaitest.ToolCall{Name: "pythonpython", Arguments: `{"code":"print(1)"}`}),
		openaitest.Text("The variance is about 7,000."))
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, srv.URL, "-p", "variance", "--json", q1)
	if code := r.exec(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		Incomplete bool
		Warnings   []string
		Cells      []json.RawMessage
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Incomplete || len(res.Cells) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `"pythonpython" that does not exist`) {
		t.Errorf("JSON = %s", r.stdout.String())
	}
	if !strings.Contains(r.stderr.String(), "quarry: warning: no code ran for this answer") {
		t.Errorf("stderr:\n%s", r.stderr.String())
	}
	if tool := srv.ChatRequests()[1].LastToolResult(); !strings.Contains(tool, `no tool "pythonpython"`) {
		t.Errorf("the model was not told: %q", tool)
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

// A reply that is not the API's (a proxy's login page) is named by its
// first bytes, and the hint is about base_url, not reachability or keys.
func TestNotTheAPIsReplyIsNamed(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.Raw("<!DOCTYPE html><title>Corp SSO \x1b]0;pwned\x07</title>\n"))
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, srv.URL, "-p", "variance", q1)
	if code := r.exec(2 * time.Minute); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	msg := r.stderr.String()
	for _, want := range []string{`it began "<!DOCTYPE html><title>Corp SSO`, "not as an OpenAI-compatible Chat Completions API", "base_url"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "reachable") || strings.Contains(msg, "key is valid") || strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("wrong hint or raw control characters:\n%q", msg)
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}
