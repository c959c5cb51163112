package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

// A kernel's Halt ends the turn after its cell with the Halt's words, not
// as a broken sandbox: the cell's result stays the model's answer, the
// next call of the response is not run, and the conversation stays valid.
func TestHaltEndsTheTurnWithItsWords(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("import xgboost", "after()"), openaitest.Text("next"))
	k := &stubKernel{run: func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
		return kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "ModuleNotFoundError", Message: "No module named 'xgboost'"},
			Notes: []string{"add it with quarry sandbox add python3-xgboost"}}, &Halt{Message: "the cell needs python3-xgboost: quarry sandbox add python3-xgboost"}
	}}
	a := newAgent(t, testConfig(srv), k)
	rec := &recorder{}
	_, err := a.Run(context.Background(), "train", rec.emit)
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindHalted || ae.Message != "the cell needs python3-xgboost: quarry sandbox add python3-xgboost" {
		t.Fatalf("err = %#v", err)
	}
	if len(k.Codes()) != 1 {
		t.Fatalf("cells after the halt ran: %v", k.Codes())
	}
	done := rec.of(EventCellDone)
	if len(done) != 1 || done[0].Result.Error == nil || done[0].Result.Error.Type != "ModuleNotFoundError" {
		t.Fatalf("cell done %+v", done)
	}
	if _, _, err := run(t, a, "something else"); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, m := range srv.ChatRequests()[1].Messages() {
		if m.Role == "tool" {
			tools = append(tools, m.Content)
		}
	}
	if len(tools) != 2 || !strings.Contains(tools[0], "quarry sandbox add python3-xgboost") || !strings.Contains(tools[1], "Not run: the cell needs python3-xgboost") {
		t.Fatalf("tool results %q", tools)
	}
}
