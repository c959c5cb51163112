package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/session"
)

// The tools about the session as a whole: its outputs, undo, the number
// check and the export.

// OutputsOutput is list_outputs' result.
type OutputsOutput struct {
	Outputs []OutputFile `json:"outputs"`
}

// UndoOutput says what undo took back.
type UndoOutput struct {
	Undone   string   `json:"undone" jsonschema:"the call taken back"`
	Removed  []string `json:"removed,omitempty" jsonschema:"files it saved, now gone"`
	Changed  []string `json:"changed,omitempty" jsonschema:"files it rewrote, which keep their new contents"`
	Replayed int      `json:"replayed,omitempty" jsonschema:"earlier cells run again to rebuild the state"`
	Warning  string   `json:"warning,omitempty"`
}

// NumbersOutput is check_numbers' result: the numbers as quarry -p --json
// lists an answer's.
type NumbersOutput struct {
	Numbers    []Number `json:"numbers"`
	Unverified int      `json:"unverified"`
}

// Number is one number of the text.
type Number struct {
	Text     string  `json:"text" jsonschema:"as written"`
	Value    float64 `json:"value" jsonschema:"its value (a percent as a fraction)"`
	Grounded bool    `json:"grounded" jsonschema:"a cell's output or a file's profile holds it"`
	Cell     *int    `json:"cell" jsonschema:"the cell whose output holds it"`
	Source   *string `json:"source" jsonschema:"the printed line or table cell it matched"`
}

// ExportOutput names the file export_session wrote.
type ExportOutput struct {
	Format string `json:"format"`
	Name   string `json:"name"`
	URI    string `json:"uri" jsonschema:"read it with resources/read"`
	Size   int64  `json:"size"`
}

func (s *Server) listOutputs(ctx context.Context, req *sdk.CallToolRequest, _ NoInput) (*sdk.CallToolResult, OutputsOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, OutputsOutput{}, err
	}
	out := OutputsOutput{Outputs: []OutputFile{}}
	c.mu.Lock()
	files := append([]kernel.File(nil), c.outputs...)
	c.mu.Unlock()
	res := &sdk.CallToolResult{}
	var lines []string
	for _, f := range files {
		o := outputFile(f)
		out.Outputs = append(out.Outputs, o)
		lines = append(lines, fmt.Sprintf("/output/%s (%s) %s", f.Name, kernel.FormatSize(f.Size), o.URI))
		size := f.Size
		res.Content = append(res.Content, &sdk.ResourceLink{URI: o.URI, Name: f.Name, MIMEType: o.MIMEType, Size: &size})
	}
	text := "no files saved yet: save under /output (figures with plt.savefig or plt.show())"
	if len(lines) > 0 {
		text = strings.Join(lines, "\n")
	}
	res.Content = append([]sdk.Content{&sdk.TextContent{Text: text}}, res.Content...)
	return res, out, nil
}

func (s *Server) undo(ctx context.Context, req *sdk.CallToolRequest, _ NoInput) (*sdk.CallToolResult, UndoOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, UndoOutput{}, err
	}
	sess := c.current()
	if sess == nil {
		return nil, UndoOutput{}, errNothingToUndo
	}
	u, err := sess.Undo(ctx)
	if errors.Is(err, session.ErrNothingToUndo) {
		return nil, UndoOutput{}, errNothingToUndo
	}
	if err != nil {
		return nil, UndoOutput{}, err
	}
	c.forget(u.Removed)
	out := UndoOutput{Undone: u.Question, Removed: u.Removed, Changed: u.Changed, Replayed: u.Replayed, Warning: u.Warning}
	text := "took back: " + u.Question + "; the kernel is as it was before it"
	if len(u.Removed) > 0 {
		text += "; removed " + strings.Join(u.Removed, ", ")
	}
	if u.Warning != "" {
		text += "\nwarning: " + u.Warning
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

var errNothingToUndo = errors.New("nothing to undo: no run_python or run_sql call since the session began (or all were taken back)")

func (s *Server) checkNumbers(ctx context.Context, req *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, NumbersOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, NumbersOutput{}, err
	}
	var claims []ground.Claim
	if sess := c.current(); sess != nil {
		if claims, err = sess.CheckNumbers(ctx, in.Text); err != nil {
			return nil, NumbersOutput{}, err
		}
	} else {
		// No cell has run: nothing holds any number, but they are listed.
		m := secret.New(s.opts.Config.Secrets()...)
		claims = ground.Check(ground.Input{Answer: m.Mask(in.Text), Thousands: s.opts.Config.Thousands})
	}
	out := NumbersOutput{Numbers: []Number{}}
	var lines []string
	for _, cl := range claims {
		out.Numbers = append(out.Numbers, Number{Text: cl.Text, Value: cl.Value, Grounded: cl.Grounded, Cell: cl.Cell, Source: cl.Source})
		switch {
		case !cl.Grounded:
			out.Unverified++
			lines = append(lines, fmt.Sprintf("%s: unverified, in no cell's output", cl.Text))
		case cl.Cell != nil && cl.Source != nil:
			lines = append(lines, fmt.Sprintf("%s: grounded in cell %d (%s)", cl.Text, *cl.Cell, *cl.Source))
		default:
			lines = append(lines, cl.Text+": grounded in an attached file's profile")
		}
	}
	head := fmt.Sprintf("%d numbers, %d unverified", len(claims), out.Unverified)
	if out.Unverified > 0 {
		head += ": compute each unverified one in a cell and quote the printed value, or drop it"
	}
	text := strings.Join(append([]string{head}, lines...), "\n")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func (s *Server) exportSession(ctx context.Context, req *sdk.CallToolRequest, in ExportInput) (*sdk.CallToolResult, ExportOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, ExportOutput{}, err
	}
	f, err := export.ParseFormat(in.Format)
	if err != nil {
		return nil, ExportOutput{}, fmt.Errorf("format %q: use %s", in.Format, formatList())
	}
	sess := c.current()
	if sess == nil {
		return nil, ExportOutput{}, errors.New("nothing to export yet: attach a file or run a cell first")
	}
	rec, err := session.LoadRecord(sess.OutputDir())
	if err != nil {
		return nil, ExportOutput{}, errors.New("nothing to export yet: run a cell first")
	}
	name := export.DefaultName(f)
	dest := filepath.Join(sess.OutputDir(), name)
	if f.Built() { // as quarry export does: the report's builder, in a sandbox of its own
		p := newProgress(ctx, req)
		p.say("building the " + name + " in a sandbox of its own")
		done := p.beat("the report's build")
		_, err = export.WriteReport(ctx, rec, sess.Builder(), export.ReportOptions{Formats: []export.Format{f}, Paths: map[export.Format]string{f: dest}})
		done()
	} else {
		_, err = export.Write(rec, f, dest)
	}
	if err != nil {
		return nil, ExportOutput{}, fmt.Errorf("export: %s", sess.Mask(err.Error()))
	}
	st, err := os.Stat(dest)
	if err != nil {
		return nil, ExportOutput{}, fmt.Errorf("export: %v", unwrapPath(err))
	}
	c.mu.Lock()
	c.exports = append(slices.DeleteFunc(c.exports, func(e exported) bool { return e.name == name }), exported{name: name, size: st.Size()})
	c.mu.Unlock()
	out := ExportOutput{Format: string(f), Name: name, URI: exportPrefix + name, Size: st.Size()}
	size := st.Size()
	said := fmt.Sprintf("wrote %s (%s) of session %s: read it as %s", name, kernel.FormatSize(size), sess.ID(), out.URI)
	if f.Built() && !export.HasVariance(rec) {
		said += "\n" + export.NoVariance + " Call variance() in run_python for the table of actuals against budget."
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: said},
		&sdk.ResourceLink{URI: out.URI, Name: name, MIMEType: mimeOf(name), Size: &size},
	}}
	return res, out, nil
}
