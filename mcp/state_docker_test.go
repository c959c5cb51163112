package mcp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

// The kernel keeps its state between calls, and a DataFrame comes back as
// a Markdown table and as structured rows.
func TestStateAcrossCalls(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	h.writeFile("q1.csv", "department,budget,actual\nSales,100,120\nHR,50,45\nIT,80,95\n")
	att := h.ok("attach_file", map[string]any{"path": "q1.csv"})
	if got := text(att); !strings.Contains(got, "/data/q1.csv") || !strings.Contains(got, "read with:") || !strings.Contains(got, "budget") {
		t.Fatalf("attach text:\n%s", got)
	}
	var prof AttachOutput
	structured(t, att, &prof)
	if prof.Path != "/data/q1.csv" || prof.Rows != 3 || len(prof.Columns) != 3 {
		t.Fatalf("attach structured: %+v", prof)
	}
	h.ok("run_python", map[string]any{"code": "df = pd.read_csv('/data/q1.csv')\nx = 41"})
	if got := text(h.ok("run_python", map[string]any{"code": "x + 1"})); !strings.Contains(got, "42") {
		t.Fatalf("x + 1:\n%s", got)
	}
	res := h.ok("run_python", map[string]any{"code": "df['gap'] = df.actual - df.budget\ndf"})
	var out CellOutput
	structured(t, res, &out)
	if out.Cell != 3 || out.Table == nil || out.Table.Shape.Rows != 3 || out.Table.Shape.Columns != 4 || out.Table.Rows[0][3] != "20" {
		t.Fatalf("table structured: %+v", out)
	}
	if got := text(res); !strings.Contains(got, "| Sales |") || !strings.Contains(got, "gap") {
		t.Fatalf("table markdown:\n%s", got)
	}
}

// A figure comes back as PNG image content (checked as the chat checks
// it), is listed, and reads back as a resource with the same bytes.
func TestFigureAsImage(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	res := h.ok("run_python", map[string]any{"code": "plt.plot([1, 3, 2])\nplt.title('trend')\nplt.show()"})
	var img *sdk.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" {
		t.Fatalf("no PNG image content in %s", text(res))
	}
	if w, hgt, err := kernel.CheckPNG(img.Data); err != nil || w < 100 || hgt < 100 {
		t.Fatalf("the image is not a figure: %dx%d %v", w, hgt, err)
	}
	var out CellOutput
	structured(t, res, &out)
	if len(out.Figures) != 1 || !strings.HasPrefix(out.Figures[0].URI, "quarry://output/figures/") {
		t.Fatalf("figures: %+v", out.Figures)
	}
	var list OutputsOutput
	structured(t, h.ok("list_outputs", nil), &list)
	if len(list.Outputs) != 1 || list.Outputs[0].URI != out.Figures[0].URI {
		t.Fatalf("list_outputs: %+v", list)
	}
	ctx := context.Background()
	rl, err := h.cs.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 1 || rl.Resources[0].URI != out.Figures[0].URI {
		t.Fatalf("resources/list: %+v %v", rl, err)
	}
	rr, err := h.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: out.Figures[0].URI})
	if err != nil || len(rr.Contents) != 1 || !bytes.Equal(rr.Contents[0].Blob, img.Data) {
		t.Fatalf("resources/read: %v", err)
	}
	if _, err := h.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "quarry://output/../session.jsonl"}); err == nil {
		t.Fatal("a resource outside the outputs was read")
	}
}

// An exception is an error result with its traceback; the kernel lives on.
func TestExceptionIsError(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	res := h.call("run_python", map[string]any{"code": "def f():\n    return {}['missing']\nf()"})
	if !res.IsError {
		t.Fatalf("an exception is not isError: %s", text(res))
	}
	got := text(res)
	if !strings.Contains(got, "KeyError") || !strings.Contains(got, `File "<cell-1>", line 2, in f`) || !strings.Contains(got, "f()") {
		t.Fatalf("no traceback in:\n%s", got)
	}
	var out CellOutput
	structured(t, res, &out)
	if out.Status != "failed" || out.Error == nil || out.Error.Type != "KeyError" {
		t.Fatalf("structured: %+v", out)
	}
	if got := text(h.ok("run_python", map[string]any{"code": "print('alive')"})); !strings.Contains(got, "alive") {
		t.Fatalf("after the exception:\n%s", got)
	}
}

// A long cell sends progress; the client's cancellation interrupts it and
// the kernel keeps what it had.
func TestCancelKeepsState(t *testing.T) {
	beats := make(chan string, 16)
	h := newHarness(t, Options{}, true, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			select {
			case beats <- r.Params.Message:
			default:
			}
		},
	})
	h.ok("run_python", map[string]any{"code": "kept = 7"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": "import time\nprint('started', flush=True)\ntime.sleep(60)\nkept = 0"}}
	params.SetProgressToken("long-cell")
	errc := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case msg := <-beats:
		if !strings.Contains(msg, "the cell has run for") {
			t.Fatalf("progress message %q", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no progress notification within 30 s")
	}
	t0 := time.Now()
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	res := h.ok("run_python", map[string]any{"code": "kept"})
	if got := text(res); !strings.Contains(got, "7") {
		t.Fatalf("state after the cancel:\n%s", got)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Fatalf("the next call waited %s: the cancelled cell was not interrupted", d)
	}
}

// undo takes back the last call: variables and the files it saved.
func TestUndo(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	h.ok("run_python", map[string]any{"code": "a = 1"})
	h.ok("run_python", map[string]any{"code": "a = 2\nb = 3\nopen('/output/u.txt', 'w').write('x')"})
	var list OutputsOutput
	structured(t, h.ok("list_outputs", nil), &list)
	if len(list.Outputs) != 1 || list.Outputs[0].Name != "u.txt" {
		t.Fatalf("outputs before undo: %+v", list)
	}
	var u UndoOutput
	structured(t, h.ok("undo", nil), &u)
	if !strings.Contains(u.Undone, "run_python") || len(u.Removed) != 1 || u.Removed[0] != "u.txt" {
		t.Fatalf("undo: %+v", u)
	}
	if got := text(h.ok("run_python", map[string]any{"code": "print(a, 'b' in globals())"})); !strings.Contains(got, "1 False") {
		t.Fatalf("after undo:\n%s", got)
	}
	structured(t, h.ok("list_outputs", nil), &list)
	if len(list.Outputs) != 0 {
		t.Fatalf("outputs after undo: %+v", list)
	}
	h.ok("undo", nil) // the print
	h.ok("undo", nil) // a = 1
	if got := h.call("run_python", map[string]any{"code": "a"}); !got.IsError || !strings.Contains(text(got), "NameError") {
		t.Fatalf("a after undoing everything:\n%s", text(got))
	}
	h.ok("undo", nil) // the failed cell
	if res := h.call("undo", nil); !res.IsError || !strings.Contains(text(res), "nothing to undo") {
		t.Fatalf("undo with nothing left: %s", text(res))
	}
}

// check_numbers grounds what a cell printed and flags the rest.
func TestCheckNumbers(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	before := h.ok("check_numbers", map[string]any{"text": "The mean is 41.5."})
	var n NumbersOutput
	structured(t, before, &n)
	if len(n.Numbers) != 1 || n.Numbers[0].Grounded || n.Unverified != 1 {
		t.Fatalf("before any cell: %+v", n)
	}
	h.ok("run_python", map[string]any{"code": "print('mean', 41.5)"})
	structured(t, h.ok("check_numbers", map[string]any{"text": "The mean is **41.5**, and the maximum is 99."}), &n)
	if len(n.Numbers) != 2 || n.Unverified != 1 {
		t.Fatalf("numbers: %+v", n)
	}
	mean, max := n.Numbers[0], n.Numbers[1]
	if !mean.Grounded || mean.Cell == nil || *mean.Cell != 1 || mean.Source == nil || !strings.Contains(*mean.Source, "41.5") {
		t.Fatalf("41.5: %+v", mean)
	}
	if max.Grounded || max.Cell != nil || max.Value != 99 {
		t.Fatalf("99: %+v", max)
	}
}

// When the client goes away its sandbox goes; the session stays recorded,
// so quarry sessions lists it and export and rerun read it.
func TestClientGoneLeavesNoContainer(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	h.writeFile("q1.csv", "a,b\n1,2\n3,4\n")
	h.ok("attach_file", map[string]any{"path": "q1.csv"})
	h.ok("run_python", map[string]any{"code": "print(pd.read_csv('/data/q1.csv').b.sum())"})
	id := h.logs.sessionID()
	if id == "" {
		t.Fatal("no session started")
	}
	h.cs.Close()
	deadline := time.Now().Add(time.Minute)
	for openSessions(h.srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if openSessions(h.srv) != 0 {
		t.Fatal("the MCP session is still open after the client closed")
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
	rec, err := session.FindSession(h.index, id)
	if err != nil {
		t.Fatal(err)
	}
	turns := rec.Turns()
	if len(turns) != 1 || len(turns[0].Cells) != 1 || !strings.Contains(turns[0].Question, "run_python") || len(rec.Inputs()) != 1 {
		t.Fatalf("record: %+v", turns)
	}
	if rt := rec.RerunTurns(); len(rt) != 1 || len(rt[0].Cells) != 1 {
		t.Fatalf("rerun turns: %+v", rt)
	}
	list, _, err := session.ListSessions(h.index)
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Cells != 1 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
}

// export_session writes each format the export offers, as a resource.
func TestExportSession(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	if res := h.call("export_session", map[string]any{"format": "html"}); !res.IsError {
		t.Fatalf("an export before any cell: %s", text(res))
	}
	h.ok("run_python", map[string]any{"code": "print('total', 42)"})
	for _, f := range export.Formats() {
		var out ExportOutput
		structured(t, h.ok("export_session", map[string]any{"format": string(f)}), &out)
		rr, err := h.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: out.URI})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if body := rr.Contents[0].Text; !strings.Contains(body, "total") {
			t.Fatalf("%s export lacks the cell: %.300s", f, body)
		}
	}
	if res := h.call("export_session", map[string]any{"format": "docx"}); !res.IsError {
		t.Fatal("an unknown format was accepted")
	}
}

// Past --max-sessions sandboxes the next session's first call is refused,
// saying why; when a session ends its place is free again.
func TestMaxSessions(t *testing.T) {
	srv, _ := testServer(t, Options{MaxSessions: 1}, true)
	first := connectClient(t, srv, "first", nil)
	second := connectClient(t, srv, "second", nil)
	if res := callTool(t, first, "run_python", map[string]any{"code": "1"}); res.IsError {
		t.Fatalf("first: %s", text(res))
	}
	res := callTool(t, second, "run_python", map[string]any{"code": "1"})
	if !res.IsError || !strings.Contains(text(res), "--max-sessions 1") {
		t.Fatalf("second, past the limit: %s", text(res))
	}
	first.Close()
	for deadline := time.Now().Add(time.Minute); openSessions(srv) > 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if res := callTool(t, second, "run_python", map[string]any{"code": "print('now', 2)"}); res.IsError || !strings.Contains(text(res), "now 2") {
		t.Fatalf("second, after the first left: %s", text(res))
	}
}

// Long output is cut as the chat cuts it for its model, saying so; a
// timeout_s shorter than the server's limit stops the cell as a timeout,
// and the kernel lives on.
func TestLongOutputCutAndTimeout(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	res := h.ok("run_python", map[string]any{"code": "print('HEAD')\nfor i in range(3000):\n    print('line', i)\nprint('TAIL')"})
	got := text(res)
	if !strings.Contains(got, "HEAD") || !strings.Contains(got, "TAIL") || !strings.Contains(got, "characters omitted") || len(got) > 9000 {
		t.Fatalf("long output (%d bytes):\n%.400s", len(got), got)
	}
	t0 := time.Now()
	res = h.call("run_python", map[string]any{"code": "import time\ntime.sleep(30)", "timeout_s": 1})
	var out CellOutput
	structured(t, res, &out)
	if !res.IsError || out.Error == nil || out.Error.Kind != "timeout" || !strings.Contains(out.Error.Message, "timeout_s") || time.Since(t0) > 15*time.Second {
		t.Fatalf("timeout_s after %s: %+v %s", time.Since(t0), out, text(res))
	}
	if got := text(h.ok("run_python", map[string]any{"code": "print('after', 1 + 1)"})); !strings.Contains(got, "after 2") {
		t.Fatalf("after the timeout:\n%s", got)
	}
	if res := h.call("run_python", map[string]any{"code": "1", "timeout_s": -1}); !res.IsError {
		t.Fatal("a negative timeout_s was taken")
	}
}
