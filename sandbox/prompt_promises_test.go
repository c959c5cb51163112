package sandbox_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// systemPrompt is the agent's template; what it promises must hold here.
const systemPrompt = "../agent/prompt/system.tmpl"

// promisedNames lists what the system prompt tells the model it can use:
// the libraries under "Available:" (as import names) and every function
// its code spans call, such as sql() or pyarrow.csv.open_csv (strings
// inside a call, like SQL text, are not code).
func promisedNames(t *testing.T) []string {
	b, err := os.ReadFile(systemPrompt)
	if err != nil {
		t.Fatalf("read the system prompt: %v", err)
	}
	text, _ := splitClusterSection(t, string(b))
	var names []string
	avail := regexp.MustCompile(`Available: ([^.]+)\.`).FindStringSubmatch(text)
	if avail == nil {
		t.Fatalf("%s has no \"Available: …\" list", systemPrompt)
	}
	importName := map[string]string{"scikit-learn": "sklearn"}
	for _, lib := range strings.Split(avail[1], ",") {
		lib = strings.TrimSpace(lib)
		if n, ok := importName[lib]; ok {
			lib = n
		}
		names = append(names, lib)
	}
	return append(names, codeCalls(text)...)
}

// clusterSection is the part of the prompt only a session with a Dask
// cluster gets: its promises hold in such a session (cluster_test.go).
var clusterSection = regexp.MustCompile(`(?s)\{\{- if \.Cluster\}\}\n\n## Dask cluster\n.*?\n\{\{- end\}\}\n\n## `)

// splitClusterSection returns the prompt without its cluster section, and
// the section.
func splitClusterSection(t *testing.T, text string) (rest, cluster string) {
	m := clusterSection.FindStringIndex(text)
	if m == nil {
		t.Fatalf("%s has no {{- if .Cluster}} section", systemPrompt)
	}
	return text[:m[0]] + text[m[1]-3:], text[m[0]:m[1]]
}

// codeCalls are the functions the text's code spans call, and what they
// read of variance()'s table v.
func codeCalls(text string) []string {
	var names []string
	strs := regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	call := regexp.MustCompile(`(?:^|[^\w.)])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(`)
	// v is the table variance() returns: what the prompt reads of it must be there.
	table := regexp.MustCompile(`(?:^|[^\w.])(v\.[A-Za-z_]\w*)`)
	text = strings.ReplaceAll(text, "```", "")
	for _, span := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(text, -1) {
		code := strs.ReplaceAllString(span[1], `""`)
		for _, m := range append(call.FindAllStringSubmatch(code, -1), table.FindAllStringSubmatch(code, -1)...) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// resolveNames is a cell that prints, as QJSON, each of names it cannot
// resolve in the session (a global, a builtin or a module's attribute)
// with why.
func resolveNames(names []string) string {
	js, _ := json.Marshal(names)
	return `import builtins, importlib
def resolve(dotted):
    parts = dotted.split('.')
    if parts[0] in globals():
        obj = globals()[parts[0]]
    elif hasattr(builtins, parts[0]):
        obj = getattr(builtins, parts[0])
    else:
        obj = importlib.import_module(parts[0])
    for i, p in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, p)
        except AttributeError:
            obj = importlib.import_module('.'.join(parts[:i + 1]))
    return obj
out = {}
for name in ` + string(js) + `:
    try:
        resolve(name)
    except Exception as e:
        out[name] = '%s: %s' % (type(e).__name__, e)` + report
}

// Every library and function the system prompt promises exists in the real
// sandbox: imported, or defined in the kernel (sql, DuckDBError).
func TestPromptPromisesHoldInImage(t *testing.T) {
	names := promisedNames(t)
	for _, must := range []string{"pandas", "sql", "pyarrow.csv.open_csv", "pyarrow.parquet.ParquetFile", "variance", "bridge", "v.material"} {
		if !slices.Contains(names, must) {
			t.Errorf("the prompt no longer promises %s (found %v): keep this test in step", must, names)
		}
	}
	s := sharedSession(t)
	var missing map[string]string
	runJSON(t, s, "v = variance(pd.DataFrame({'line': ['Sales', 'Rent'], 'x': [110.0, 90.0]}), pd.DataFrame({'line': ['Sales', 'Rent'], 'x': [100.0, 100.0]}))\n"+
		resolveNames(append(names, "DuckDBError")), &missing)
	for name, why := range missing {
		t.Errorf("the system prompt promises %s, but in the sandbox: %s", name, why)
	}
	// The prompt names every column variance() returns.
	var columns []string
	runJSON(t, s, "out = [str(c) for c in v.columns[1:]]"+report, &columns)
	prompt, _ := os.ReadFile(systemPrompt)
	for _, c := range columns {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(c) + `\b`).Match(prompt) {
			t.Errorf("variance() returns a column %q the system prompt does not name", c)
		}
	}
	// And every effect it yields, as it spells them: a revenue line above
	// budget, a cost line above, a line on budget and one it cannot classify.
	var effects []string
	runJSON(t, s, `lines = ['Sales', 'Rent', 'Travel', 'Zebra']
e = variance(pd.DataFrame({'line': lines, 'x': [110.0, 110.0, 100.0, 5.0]}), pd.DataFrame({'line': lines, 'x': [100.0, 100.0, 100.0, 4.0]}),
             kind={'Sales': 'revenue', 'Rent': 'cost', 'Travel': 'cost'})
out = sorted(set(e.effect[:-1]))`+report, &effects)
	if len(effects) != 4 {
		t.Errorf("the four lines' effects: %q", effects)
	}
	for _, e := range effects {
		if !strings.Contains(string(prompt), "`"+e+"`") {
			t.Errorf("variance() yields the effect %q, which the system prompt does not name", e)
		}
	}
	t.Logf("checked in the sandbox: %s", strings.Join(names, ", "))
}
