package agent

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/pykernel"
)

// taught are the kernel's functions the system prompt teaches the model,
// with the part that defines each (pykernel/parts.txt's paths).
var taught = map[string]string{
	"sql":      "sql/front.py",
	"variance": "variance/front.py",
	"bridge":   "variance/bridge.py",
	"pvm":      "variance/pvm.py",
	"explain":  "variance/explain.py",
}

// The prompt's description of the functions it teaches cannot drift from
// the functions: every keyword it shows for one is a parameter of its
// numpydoc docstring, and the docstring's parameters are the signature's.
func TestPromptAgreesWithTheKernelDocstrings(t *testing.T) {
	prompt, err := os.ReadFile("prompt/system.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for fn, part := range taught {
		src[fn] = pykernel.Source(part)
	}
	for _, e := range promptDocErrors(string(prompt), src) {
		t.Error(e)
	}
	if n := len(promptKeywords(string(prompt), "variance")); n < 4 {
		t.Errorf("found only %d keywords the prompt shows for variance()", n)
	}
}

// The check can fail: a keyword the docstring lacks, a docstring parameter
// the signature lacks.
func TestPromptDocstringCheckCatchesDrift(t *testing.T) {
	prompt, _ := os.ReadFile("prompt/system.tmpl")
	src := map[string]string{}
	for fn, part := range taught {
		src[fn] = pykernel.Source(part)
	}
	drifted := strings.Replace(string(prompt), "`material_abs=`", "`material_amount=`", 1)
	if errs := strings.Join(promptDocErrors(drifted, src), "\n"); !strings.Contains(errs, "variance: the prompt shows material_amount=") {
		t.Errorf("a keyword the docstring lacks passed: %q", errs)
	}
	src["sql"] = strings.Replace(src["sql"], "def sql(query, max_rows=SQL_MAX_ROWS, db=None):", "def sql(query, max_rows=SQL_MAX_ROWS):", 1)
	if errs := strings.Join(promptDocErrors(string(prompt), src), "\n"); !strings.Contains(errs, "sql: the docstring documents db") {
		t.Errorf("a docstring parameter the signature lacks passed: %q", errs)
	}
}

func promptDocErrors(prompt string, src map[string]string) []string {
	var errs []string
	for fn, code := range src {
		sig, doc, ok := pyFunction(code, fn)
		if !ok {
			errs = append(errs, fn+": no def "+fn+"(...) with a docstring in "+taught[fn])
			continue
		}
		params := numpydocParams(doc)
		if len(params) == 0 {
			errs = append(errs, fn+": its docstring has no numpydoc Parameters section")
		}
		for _, p := range params {
			if !slices.Contains(sig, p) {
				errs = append(errs, fn+": the docstring documents "+p+", which the signature lacks")
			}
		}
		for _, p := range sig {
			if !slices.Contains(params, p) {
				errs = append(errs, fn+": the signature's "+p+" is not in the docstring's Parameters")
			}
		}
		for _, k := range promptKeywords(prompt, fn) {
			if !slices.Contains(params, k) {
				errs = append(errs, fn+": the prompt shows "+k+"=, which is not among its docstring's parameters")
			}
		}
	}
	slices.Sort(errs)
	return errs
}

var (
	pyParam     = regexp.MustCompile(`^\*{0,2}(\w+)`)
	docParam    = regexp.MustCompile(`(?m)^    (\w+(?:, \w+)*) : `)
	ticked      = regexp.MustCompile("`([^`]+)`")
	keywordArg  = regexp.MustCompile(`\b(\w+)=`)
	bareKeyword = regexp.MustCompile(`^(\w+)=$`)
)

// pyFunction finds def fn(...) at the top level of code: its parameters'
// names and its docstring.
func pyFunction(code, fn string) (params []string, doc string, ok bool) {
	_, rest, found := strings.Cut(code, "\ndef "+fn+"(")
	if !found {
		return nil, "", false
	}
	args, body, found := strings.Cut(rest, "):\n")
	if !found {
		return nil, "", false
	}
	for _, a := range strings.Split(args, ",") {
		if m := pyParam.FindStringSubmatch(strings.TrimSpace(a)); m != nil {
			params = append(params, m[1])
		}
	}
	body = strings.TrimLeft(body, " ")
	if !strings.HasPrefix(body, `"""`) {
		return params, "", false
	}
	doc, _, found = strings.Cut(body[3:], `"""`)
	return params, doc, found
}

// numpydocParams are the names the Parameters section documents.
func numpydocParams(doc string) []string {
	_, sec, ok := strings.Cut(doc, "Parameters\n    ----------\n")
	if !ok {
		return nil
	}
	if i := strings.Index(sec, "\n    -------"); i >= 0 {
		sec = sec[:strings.LastIndex(sec[:i], "\n")]
	}
	var names []string
	for _, m := range docParam.FindAllStringSubmatch(sec, -1) {
		names = append(names, strings.Split(m[1], ", ")...)
	}
	return names
}

// promptKeywords are the keywords the prompt shows for fn: in a call of it
// (`sql(query, db="shop")`) and, on a line about it, on their own
// (`material_pct=`).
func promptKeywords(prompt, fn string) []string {
	call := regexp.MustCompile(`(?:^|[^\w.])` + fn + `\(([^()]*)\)`)
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, line := range strings.Split(prompt, "\n") {
		mentions := strings.Contains(line, "`"+fn+"(")
		for _, m := range ticked.FindAllStringSubmatch(line, -1) {
			for _, c := range call.FindAllStringSubmatch(m[1], -1) {
				for _, k := range keywordArg.FindAllStringSubmatch(c[1], -1) {
					add(k[1])
				}
			}
			if k := bareKeyword.FindStringSubmatch(m[1]); k != nil && mentions && ownKeyword(line, fn, m[0]) {
				add(k[1])
			}
		}
	}
	return out
}

// ownKeyword: a bare keyword on a line belongs to the function the line
// is about, the first it names (a line teaching variance() names bridge()
// after it).
func ownKeyword(line, fn, tick string) bool {
	at := strings.Index(line, tick)
	first, firstAt := "", at
	for other := range taught {
		if m := regexp.MustCompile(`(?:^|[^\w.])` + other + `\(`).FindStringIndex(line[:at]); m != nil && m[0] < firstAt {
			first, firstAt = other, m[0]
		}
	}
	return first == fn
}
