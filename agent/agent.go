package agent

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// CONTRACT (lead): the exported shapes below are what session/, headless and
// ui build on. The agent owner fills in the bodies and may add to them.

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
	SendExamples    bool   // include example values from file profiles in the prompt
	Prices          map[string]Price
	HTTPClient      *http.Client // nil means a default client
	// MaxRetries and MaxRetryTime bound retries of one request; zero means 5
	// attempts within 2 minutes.
	MaxRetries   int
	MaxRetryTime time.Duration
}

// Agent holds one conversation with a model.
type Agent struct {
	cfg    Config
	kernel Kernel
	files  []kernel.Profile
}

// New checks the configuration and returns an agent; it does no I/O.
func New(cfg Config, k Kernel) (*Agent, error) {
	return &Agent{cfg: cfg, kernel: k}, nil
}

// SetFiles replaces the attached files the model is told about.
func (a *Agent) SetFiles(files []kernel.Profile) { a.files = files }

// Run runs one turn: the prompt, as many cells as the model needs, the final
// answer. Every event goes to emit, in order, from the calling goroutine.
// It returns the final answer; the error (also emitted as EventError) says
// in words why the turn failed.
func (a *Agent) Run(ctx context.Context, prompt string, emit func(Event)) (string, error) {
	return "", errors.New("agent: not implemented yet")
}

// Reset forgets the conversation but keeps the configuration and files.
func (a *Agent) Reset() {}

// SetModel switches the model for the following turns.
func (a *Agent) SetModel(name string) { a.cfg.Model = name }

// Model is the model in use.
func (a *Agent) Model() string { return a.cfg.Model }
