package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/export/reporttest"
)

// export_session writes the variance report as quarry export does, as a
// workbook (xlsx) and a PDF built in a sandbox of their own, each a
// resource whose bytes open in the readers people use. A session without
// a variance() table gets the report all the same, saying so, as from
// quarry export; once variance() has run, its lines are in both files.
func TestExportSessionReport(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	tools, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "export_session" {
			continue
		}
		schema, _ := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		format, _ := props["format"].(map[string]any)
		enum, _ := format["enum"].([]any)
		if !slices.Contains(enum, any("xlsx")) || !slices.Contains(enum, any("pdf")) || !strings.Contains(tool.Description, "workbook") {
			t.Fatalf("export_session's schema and description: %v %q", enum, tool.Description)
		}
	}

	h.ok("run_python", map[string]any{"code": "print('total', 42)"})
	res := h.ok("export_session", map[string]any{"format": "pdf"})
	if !strings.Contains(text(res), export.NoVariance) {
		t.Errorf("a report without variance() does not say so: %s", text(res))
	}
	if body := reporttest.PDFText(t, readExport(t, h, res, "application/pdf")); !strings.Contains(body, "No variance() table in this session") {
		t.Errorf("the PDF without variance():\n%s", body)
	}

	h.ok("run_python", map[string]any{"code": "v = variance(pd.DataFrame({'line': ['Product sales', 'Cloud hosting'], 'Actual': [120000.0, 9800.0], 'Budget': [100000.0, 9000.0]}))\nv"})
	for _, f := range []string{"xlsx", "pdf"} {
		res := h.ok("export_session", map[string]any{"format": f})
		if strings.Contains(text(res), export.NoVariance) {
			t.Errorf("%s: says there is no variance() table: %s", f, text(res))
		}
		var body string
		if f == "xlsx" {
			body = strings.Join(reporttest.ReadWorkbook(t, readExport(t, h, res, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), 30).Texts("Summary"), " ")
		} else {
			body = reporttest.PDFText(t, readExport(t, h, res, "application/pdf"))
		}
		if !strings.Contains(body, "Product sales") || !strings.Contains(body, "Cloud hosting") || strings.Contains(body, "No variance() table") {
			t.Errorf("the %s after variance():\n%.2000s", f, body)
		}
	}
}

// readExport reads the export a result names through resources/read and
// writes its bytes to a file of the test's, for the readers.
func readExport(t *testing.T, h *harness, res *sdk.CallToolResult, mime string) string {
	t.Helper()
	var out ExportOutput
	structured(t, res, &out)
	rr, err := h.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: out.URI})
	if err != nil {
		t.Fatalf("%s: %v", out.URI, err)
	}
	c := rr.Contents[0]
	if c.MIMEType != mime || len(c.Blob) == 0 || int64(len(c.Blob)) != out.Size {
		t.Fatalf("%s: %s, %d bytes of %d", out.URI, c.MIMEType, len(c.Blob), out.Size)
	}
	p := filepath.Join(t.TempDir(), out.Name)
	if err := os.WriteFile(p, c.Blob, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
