package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

type listed struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Title   string    `json:"title"`
	Files   []string  `json:"files"`
	Cells   int       `json:"cells"`
	Model   string    `json:"model"`
	Dir     string    `json:"dir"`
}

// sessionsJSON runs `quarry sessions --json` in home.
func sessionsJSON(t *testing.T, home string) []listed {
	t.Helper()
	r := newRun(t, "http://127.0.0.1:1/v1", "sessions", "--json").inHome(home)
	if code := r.exec(30 * time.Second); code != 0 {
		t.Fatalf("quarry sessions: exit %d", code)
	}
	var out []listed
	if err := json.Unmarshal(r.stdout.Bytes(), &out); err != nil {
		t.Fatalf("quarry sessions --json: %v\n%s", err, r.stdout.String())
	}
	return out
}

// A session run with -p is listed from anywhere and resumed from a
// script: the conversation is in the model's context and the kernel has
// the variables of the replayed cells.
func TestResumeAfterNormalExit(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	q1, q2 := writeQuarters(t, t.TempDir())
	srv := openaitest.New(t, openaitest.ToolCalls(varianceCode))
	srv.Handle(answerFromTool)
	r := newRun(t, srv.URL, "-p", "variance report by department, Q1 vs Q2", q1, q2, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	var first struct {
		Session   string
		OutputDir string `json:"output_dir"`
	}
	json.Unmarshal(r.stdout.Bytes(), &first)

	list := sessionsJSON(t, home)
	if len(list) != 1 || list[0].ID != first.Session || list[0].Dir != first.OutputDir || list[0].Cells != 1 ||
		list[0].Model != "gpt-fake" || list[0].Title != "variance report by department, Q1 vs Q2" ||
		strings.Join(list[0].Files, " ") != q1+" "+q2 || time.Since(list[0].Started) > 10*time.Minute {
		t.Fatalf("quarry sessions --json = %+v, want the first run (%+v)", list, first)
	}
	table := newRun(t, srv.URL, "sessions").inHome(home)
	if code := table.exec(30 * time.Second); code != 0 || !strings.Contains(table.stdout.String(), first.Session) ||
		!strings.Contains(table.stdout.String(), "q1.csv, q2.csv") {
		t.Errorf("quarry sessions: exit %d\n%s", code, table.stdout.String())
	}

	srv2 := openaitest.New(t, openaitest.ToolCalls(`print("SALES", pivot.loc["Sales"].tolist())`))
	srv2.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("Sales: " + req.LastToolResult())
	})
	r2 := newRun(t, srv2.URL, "-p", "and Sales only?", "--resume", first.Session, "--json").inHome(home)
	if code := r2.exec(3 * time.Minute); code != 0 {
		t.Fatalf("resume: exit %d", code)
	}
	var second struct {
		Session string
		Answer  string
	}
	json.Unmarshal(r2.stdout.Bytes(), &second)
	if second.Session != first.Session || !strings.Contains(second.Answer, "SALES [12500, -6000]") {
		t.Errorf("resumed run %+v: want session %s and the replayed pivot's numbers", second, first.Session)
	}
	if !strings.Contains(r2.stderr.String(), "rebuilding the kernel: cell 1 of 1") {
		t.Errorf("no replay progress on stderr:\n%s", r2.stderr.String())
	}
	msgs := srv2.ChatRequests()[0].Messages()
	if len(msgs) < 5 || msgs[1].Content != "variance report by department, Q1 vs Q2" || !strings.Contains(msgs[4].Content, "Variance report") {
		t.Errorf("the first turn is not in the model's context: %+v", msgs)
	}
	if list := sessionsJSON(t, home); len(list) != 1 || list[0].Cells != 2 {
		t.Errorf("after resume: %+v", list)
	}
	requireNoContainers(t, r2.cmd.Process.Pid)
}

// kill -9 in the middle of a cell loses that cell only: the question and
// the cells before it are in the record, and the session resumes.
func TestResumeAfterKill9(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	q1, _ := writeQuarters(t, t.TempDir())
	srv := openaitest.New(t,
		openaitest.ToolCalls("x = 41\nprint('x set')"),
		openaitest.ToolCalls("import time\nprint('SLEEPING', flush=True)\ntime.sleep(600)"),
	)
	out := filepath.Join(t.TempDir(), "killed")
	r := newRun(t, srv.URL, "-p", "set x, then wait", q1, "--output-dir", out).inHome(home)
	r.start()
	waitFor(t, &r.stderr, "cell 2 running", 2*time.Minute)
	time.Sleep(300 * time.Millisecond) // inside the cell
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.cmd.Wait()
	killed := r.cmd.Process.Pid

	list := sessionsJSON(t, home)
	if len(list) != 1 || list[0].Dir != out || list[0].Cells != 1 {
		t.Fatalf("after kill -9: %+v, want the session with its first cell", list)
	}
	srv2 := openaitest.New(t, openaitest.ToolCalls("print('x is', x + 1)"))
	srv2.Handle(func(req openaitest.Request) openaitest.Reply { return openaitest.Text(req.LastToolResult()) })
	r2 := newRun(t, srv2.URL, "-p", "what is x+1?", "--resume").inHome(home)
	if code := r2.exec(3 * time.Minute); code != 0 {
		t.Fatalf("resume after kill: exit %d", code)
	}
	if !strings.Contains(r2.stdout.String(), "x is 42") {
		t.Errorf("the kernel was not rebuilt: %s", r2.stdout.String())
	}
	msgs := srv2.ChatRequests()[0].Messages()
	if msgs[1].Content != "set x, then wait" {
		t.Errorf("the interrupted question is not in the context: %+v", msgs)
	}
	// The killed run's container is an orphan the resumed run swept.
	requireNoContainers(t, killed)
	requireNoContainers(t, r2.cmd.Process.Pid)
}

// An input that changed or vanished is named before anything starts
// (exit 2); --map names the file to use.
func TestResumeWithChangedInput(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	data := t.TempDir()
	q1, _ := writeQuarters(t, data)
	srv := openaitest.New(t, openaitest.ToolCalls("df = pd.read_csv('/data/q1.csv')\nprint(len(df))"), openaitest.Text("three"))
	r := newRun(t, srv.URL, "-p", "rows?", q1, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	var first struct{ Session string }
	json.Unmarshal(r.stdout.Bytes(), &first)
	id := first.Session
	os.WriteFile(q1, []byte(q1CSV+"Support,1,2\n"), 0o644)

	q3 := filepath.Join(data, "q3.csv")
	os.WriteFile(q3, []byte(q2CSV), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--resume", id}, []string{"q1.csv: " + q1 + " has changed since the session", "--map q1.csv=FILE", "--map q1.csv=" + q1}},
		{[]string{"--resume", id, "--map", "q9.csv=" + q3}, []string{"--map q9.csv=" + q3 + ": there is no input q9.csv to replace"}},
		{[]string{"--resume", id, "--map", "q1.csv=" + filepath.Join(data, "nope.csv")}, []string{"nope.csv: no such file"}},
		{[]string{"--resume", id, "--map", "q1.csv"}, []string{"give OLD=NEW"}},
		{[]string{"--resume", "20200101-000000-000000"}, []string{`no such session: "20200101-000000-000000"`}},
		{[]string{"--resume", id, "--output-dir", t.TempDir()}, []string{"--output-dir does not go with --resume"}},
		{[]string{"--map", "q1.csv=" + q3}, []string{"--map goes with --resume"}},
	} {
		bad := newRun(t, "http://127.0.0.1:1/v1", append([]string{"-p", "more"}, c.args...)...).inHome(home)
		if code := bad.exec(time.Minute); code != 2 {
			t.Errorf("%q: exit %d, want 2", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(bad.stderr.String(), w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.args, w, bad.stderr.String())
			}
		}
		if strings.Contains(bad.stderr.String(), "starting the sandbox") {
			t.Errorf("%q: the sandbox started before the bad input was found", c.args)
		}
	}
	os.Remove(q1)
	gone := newRun(t, "http://127.0.0.1:1/v1", "-p", "more", "--resume", id).inHome(home)
	if code := gone.exec(time.Minute); code != 2 || !strings.Contains(gone.stderr.String(), q1+" is gone") {
		t.Errorf("vanished input: exit %d\n%s", code, gone.stderr.String())
	}

	srv2 := openaitest.New(t, openaitest.ToolCalls("print(len(df), len(pd.read_csv('/data/q1.csv')))"))
	srv2.Handle(func(req openaitest.Request) openaitest.Reply { return openaitest.Text("rows: " + req.LastToolResult()) })
	ok := newRun(t, srv2.URL, "-p", "rows now?", "--resume", id, "--map", "q1.csv="+q3).inHome(home)
	if code := ok.exec(3 * time.Minute); code != 0 {
		t.Fatalf("--map: exit %d", code)
	}
	if !strings.Contains(ok.stdout.String(), "rows: [stdout]\n3 3") {
		t.Errorf("the mapped file was not used: %s", ok.stdout.String())
	}
	if !strings.Contains(string(srv2.ChatRequests()[0].Body), "other data for q1.csv") {
		t.Error("the model was not told the data changed")
	}
}
