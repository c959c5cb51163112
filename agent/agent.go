package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
)

// Kernel runs Python cells; the sandbox satisfies it. Cancelling ctx
// interrupts the cell. An error means the kernel itself is unusable, not that
// the code failed (a traceback comes back in Result.Error).
type Kernel interface {
	Exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error)
}

// Price is the cost of a million tokens, in US dollars.
type Price struct {
	Input  float64 `toml:"input"`
	Output float64 `toml:"output"`
}

// Config configures the model connection and the loop.
type Config struct {
	Model   string
	BaseURL string // empty means the OpenAI default
	APIKey  string // never logged, never sent to the kernel
	// Azure OpenAI: set AzureAPIVersion (and BaseURL to the resource endpoint);
	// Model is then the deployment name.
	AzureAPIVersion string
	ToolMode        string // auto (default), native, markdown
	MaxSteps        int    // cells per turn; 0 means 20
	ContextBudget   int    // prompt tokens to stay under; 0 means 100,000
	Share           string // what the model sees of files: ShareValues (default) or ShareSchema
	// Verify says the answer's numbers are checked against the outputs:
	// the system prompt tells the model so.
	Verify     bool
	Prices     map[string]Price
	HTTPClient *http.Client // nil means a default client
	// Confirm, when set, is asked before each cell runs (--confirm): it
	// returns the code to run (possibly edited by the user) and whether to
	// run it; an error (the context ended) cancels the cell.
	Confirm func(ctx context.Context, cell int, code string) (string, bool, error)
	// MaxRetries and MaxRetryTime bound retries of one request; zero means 5
	// attempts within 2 minutes. MaxRetries counts the tries after the
	// first; a negative value turns retries off.
	MaxRetries   int
	MaxRetryTime time.Duration
	// NoStream asks for whole answers instead of streams (stream = false),
	// for gateways that refuse or break streaming. A server that refuses
	// to stream switches the session to this on its own.
	NoStream bool
	// StreamIdleTimeout ends an attempt whose response stream has started
	// but sends no bytes at all (": ping" comments count) for this long; it
	// is retried like a dropped stream. 0 means 90 s, negative turns it off.
	StreamIdleTimeout time.Duration
	// RetryBaseDelay is the first backoff wait (doubling after); 0 means 1 s.
	RetryBaseDelay time.Duration
	// KeySource names where the key came from (e.g. "OPENAI_API_KEY" or
	// "api_key_cmd"), for the message when the key is rejected.
	KeySource string
	// Script, when set, plays the model instead of a server (quarry demo):
	// BaseURL, APIKey and HTTPClient are then not used.
	Script Script
}

// What the model is shown of attached files.
const (
	ShareValues = "values" // the profile with example values and first rows
	ShareSchema = "schema" // names, types, row and missing counts; the model is told to print only aggregates
)

// Tool modes.
const (
	modeAuto     = "auto"
	modeNative   = "native"
	modeMarkdown = "markdown"
)

// Agent holds one conversation with a model. It is not safe for concurrent
// use: one Run at a time.
type Agent struct {
	cfg     Config
	kernel  Kernel
	files   []kernel.Profile
	dbs     []string       // the database sources' profiles, as text
	libs    []string       // the sandbox image's Python libraries, for the prompt
	cluster ClusterPrompt  // the connected Dask cluster, for the prompt
	mask    *secret.Masker // the key and base_url's credentials, for error texts
	wire    wire           // the model server's protocol

	mode    string // native or markdown: what the next request uses
	history []entry
	turns   []turnMark // one per Run, for Undo
	total   Tokens
	cells   int // cells run in the session, for Event.Cell
	madeIDs int // tool-call ids made up for servers that send none

	// nativeCalls is set once the model has called the tool natively: a
	// fenced block in a later answer is then an example, not a fallback.
	nativeCalls bool
}

// New checks the configuration and returns an agent; it does no I/O.
func New(cfg Config, k Kernel) (*Agent, error) {
	if k == nil {
		return nil, errors.New("agent: no kernel to run code in")
	}
	if cfg.Model == "" {
		return nil, errors.New("agent: no model configured: set model in the config file or pass --model")
	}
	switch cfg.ToolMode {
	case "":
		cfg.ToolMode = modeAuto
	case modeAuto, modeNative, modeMarkdown:
	default:
		return nil, fmt.Errorf("agent: tool_mode %q is not known: use auto, native or markdown", cfg.ToolMode)
	}
	switch cfg.Share {
	case "":
		cfg.Share = ShareValues
	case ShareValues, ShareSchema:
	default:
		return nil, fmt.Errorf("agent: share %q is not known: use values or schema", cfg.Share)
	}
	if cfg.AzureAPIVersion != "" && cfg.BaseURL == "" {
		return nil, errors.New("agent: Azure OpenAI needs base_url set to the resource endpoint (https://NAME.openai.azure.com)")
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("agent: max_steps %d is negative: use a positive number (default 20)", cfg.MaxSteps)
	}
	if cfg.ContextBudget < 0 {
		return nil, fmt.Errorf("agent: context_budget %d is negative: use a number of tokens (default 100000)", cfg.ContextBudget)
	}
	a := &Agent{cfg: cfg, kernel: k, mode: modeNative,
		mask: secret.New(append([]string{cfg.APIKey}, secret.FromURL(cfg.BaseURL)...)...)}
	if cfg.ToolMode == modeMarkdown {
		a.mode = modeMarkdown
	}
	a.wire = newOpenAIWire(cfg, a.streamIdle())
	if cfg.Script != nil {
		a.wire = scriptWire{cfg.Script}
	}
	return a, nil
}

// SetFiles replaces the attached files the model is told about.
func (a *Agent) SetFiles(files []kernel.Profile) { a.files = files }

// SetSources replaces the databases the model is told about: each one's
// profile as text (package source renders it, by share).
func (a *Agent) SetSources(profiles []string) { a.dbs = profiles }

// SetLibraries replaces the sandbox image's Python libraries the model is
// told about, each "name version" (pandas 2.3.3).
func (a *Agent) SetLibraries(libs []string) { a.libs = libs }

// ClusterPrompt is what the model is told of a connected Dask cluster:
// Text ("tcp://sched:8786, 2 workers, 2 threads, 1.0 GB") and the limit on
// one result ("256 MB"). The zero value: no cluster.
type ClusterPrompt struct {
	Text, Limit string
	Datasets    []kernel.ClusterData // --dask-data's datasets, as the workers profiled them
}

// SetCluster replaces what the model is told of the Dask cluster.
func (a *Agent) SetCluster(c ClusterPrompt) { a.cluster = c }

// Run runs one turn: the prompt, as many cells as the model needs, the final
// answer. Every event goes to emit, in order, from the calling goroutine.
// It returns the final answer; the error (also emitted as EventError) says
// in words why the turn failed. When ctx is cancelled Run stops the stream
// or interrupts the cell, keeps the conversation valid for the next Run,
// emits a "cancelled" warning (no EventError) and returns an error wrapping
// context.Canceled.
func (a *Agent) Run(ctx context.Context, prompt string, emit func(Event)) (string, error) {
	a.beginTurn(prompt)
	return a.newTurn(ctx, emit).run(prompt)
}

// newTurn is a turn whose events are stamped with their time before emit.
func (a *Agent) newTurn(ctx context.Context, emit func(Event)) *turn {
	return &turn{a: a, ctx: ctx, emit: func(e Event) {
		if e.Time.IsZero() {
			e.Time = time.Now()
		}
		emit(e)
	}}
}

// Reset forgets the conversation but keeps the configuration and files.
func (a *Agent) Reset() {
	a.history = nil
	a.turns = nil
	a.total = Tokens{}
}

// SetModel switches the model for the following turns.
func (a *Agent) SetModel(name string) { a.cfg.Model = name }

// Model is the model in use.
func (a *Agent) Model() string { return a.cfg.Model }

// Scripted tells that a Script plays the model: its name is not a model
// to switch.
func (a *Agent) Scripted() bool { return a.cfg.Script != nil }

// ToolMode is the mode the next request uses: native or markdown (auto
// resolves to one of them, and may fall back to markdown during a session).
func (a *Agent) ToolMode() string { return a.mode }

// TotalUsage is the usage of the whole conversation so far.
func (a *Agent) TotalUsage() Tokens { return a.total }
