package kernel

// Report is what a cell gave the variance report: the table its last
// variance() call returned, whole, and the bars of its last bridge(). The
// kernel sends it with the cell's result (pykernel/quarry_kernel/report/capture.py),
// so the session's record holds it and a report can be written from the
// record alone, after the session has ended.
type Report struct {
	Variance *Variance `json:"variance,omitempty"`
	Bridge   *Bridge   `json:"bridge,omitempty"`
	// Analyses are the tables of the cell's last pvm() and explain(): why
	// the variance moved.
	Analyses []Analysis `json:"analyses,omitempty"`
	// Notes say what the kernel could not carry (a table too large, a
	// figure closed before the cell ended).
	Notes []string `json:"notes,omitempty"`
}

// Variance is a variance() table: one line per line of the files and the
// Total last (its bottom line), with what the call said of how it read
// them. Labels and notes are the data's own text: untrusted.
type Variance struct {
	Labels      []string          `json:"labels"` // the label columns' names
	Lines       []VarianceLine    `json:"lines"`
	Rows        int               `json:"rows"` // lines the table had; Lines holds fewer when it was too large
	Notes       []string          `json:"notes,omitempty"`
	Periods     []string          `json:"periods,omitempty"`
	Period      string            `json:"period,omitempty"` // the periods in words ("year to date")
	MaterialPct float64           `json:"material_pct"`
	MaterialAbs *float64          `json:"material_abs,omitempty"`
	Currency    string            `json:"currency,omitempty"`
	BottomLine  string            `json:"bottom_line,omitempty"` // profit, revenue, cost or sum
	Sources     map[string]string `json:"sources,omitempty"`     // actual, budget: the files' names
	Title       []string          `json:"title,omitempty"`       // a one-file export's title rows
	// Comparisons are the comparisons beside the budget (forecast, prior),
	// in the table's order; each line holds its own of each.
	Comparisons []string `json:"comparisons,omitempty"`
	// FX is the rates a constant-currency table was converted with
	// (variance()'s rates=); each line then holds its FX split.
	FX *FX `json:"fx,omitempty"`
}

// FX is the currencies of a constant-currency variance and the rates,
// actual and budget, each was converted at.
type FX struct {
	Currencies []string          `json:"currencies"`
	Rates      map[string]FXRate `json:"rates"`
}

// FXRate is one currency's rates; nil where the kernel sent none.
type FXRate struct {
	Actual *float64 `json:"actual"`
	Budget *float64 `json:"budget"`
}

// LineFX is a line's reported variance split: at constant currency (the
// actuals at the budget rate) and the FX effect, the rest; nil where a
// side had no amount.
type LineFX struct {
	VarianceCC *float64 `json:"variance_cc"`
	Effect     *float64 `json:"fx_effect"`
}

// VarianceLine is one line of a variance() table. Pct is the variance in
// percent of the budget (7.5 is 7.5%), nil where the budget is 0.
type VarianceLine struct {
	Label    []string `json:"label"` // one per label column
	Kind     string   `json:"kind,omitempty"`
	Actual   float64  `json:"actual"`
	Budget   float64  `json:"budget"`
	Variance float64  `json:"variance"`
	Pct      *float64 `json:"pct"`
	Effect   string   `json:"effect"` // better, worse, on budget, unknown
	Material bool     `json:"material"`
	Total    bool     `json:"total,omitempty"`
	// Comparisons are the line against the forecast and the prior year,
	// by comparison name, when variance() was given them.
	Comparisons map[string]LineComparison `json:"comparisons,omitempty"`
	FX          *LineFX                   `json:"fx,omitempty"`
}

// LineComparison is a line against one comparison beside the budget: the
// comparison's amount, the variance from it, its percent (nil where the
// amount is 0), better or worse, material.
type LineComparison struct {
	Amount   float64  `json:"amount"`
	Variance float64  `json:"variance"`
	Pct      *float64 `json:"pct"`
	Effect   string   `json:"effect"`
	Material bool     `json:"material"`
}

// Bridge is a bridge() waterfall: its bars, and the figure it was drawn
// in (Figure, its index among the cell's figures; Aspect, its width over
// its height; File, set by the harvest, the figure's name when its shape
// is the one the kernel reported).
type Bridge struct {
	Figure     int         `json:"figure"`
	Aspect     float64     `json:"aspect"`
	File       string      `json:"file,omitempty"`
	BottomLine string      `json:"bottom_line,omitempty"`
	Gap        float64     `json:"gap"`
	Bars       []BridgeBar `json:"bars"`
}

// BridgeBar is one bar: the budget's total (what "start"), a line's effect
// on the bottom line ("line"), the rest together ("other"), the actual's
// total ("end").
type BridgeBar struct {
	Label  string  `json:"label"`
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Effect string  `json:"effect"`
	Lines  int     `json:"lines"`
}

// Analysis is the table of a pvm() or explain() call: Kind names which;
// Rows hold numbers (float64, nil for NaN) where Numeric says so and text
// elsewhere, at most a few thousand of TotalRows. Its text is the data's
// own: untrusted.
type Analysis struct {
	Kind      string   `json:"kind"` // pvm, explain
	Columns   []string `json:"columns"`
	Numeric   []bool   `json:"numeric"`
	Rows      [][]any  `json:"rows"`
	TotalRows int      `json:"total_rows"`
	Notes     []string `json:"notes,omitempty"`
	Method    string   `json:"method,omitempty"`
}
