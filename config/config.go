// Package config owns quarry's settings: built-in defaults, the config file
// ($XDG_CONFIG_HOME/quarry/config.toml), the environment and flags, merged in
// that order onto one Config, with named provider profiles, API-key
// resolution, the zero-configuration fallback to a local Ollama and the
// check that the endpoint has the model. It must not import agent, sandbox,
// ui, headless or session.
package config

import "time"

// Price is the cost of a million tokens, in US dollars.
type Price struct {
	Input  float64 `toml:"input"`
	Output float64 `toml:"output"`
}

// Config is the effective configuration.
type Config struct {
	Profile  string // the chosen profile name, "" for none
	Provider string // openai, azure, ollama, compatible
	Model    string
	BaseURL  string
	// APIKey is resolved from APIKeyEnv or APIKeyCmd; never written anywhere.
	APIKey          string `toml:"-" json:"-"`
	APIKeyEnv       string
	APIKeyCmd       string
	AzureAPIVersion string
	ToolMode        string        // auto, native, markdown
	Timeout         time.Duration // per cell
	Memory          int64         // bytes
	CPUs            float64
	Image           string // sandbox image; empty means the built-in recipe's
	OutputDir       string // parent of per-session output folders
	Warm            int    // quarry -p: sandboxes a holder keeps started for the next runs; 0 none
	Images          string // auto, kitty, iterm, sixel, blocks, off
	Confirm         bool
	MaxSteps        int
	Theme           string // auto, dark, light
	Share           string // what the model sees of files: values or schema
	Stream          bool   // stream answers; false waits for whole ones
	StallTimeout    time.Duration
	Thousands       bool   // digit groups in the numbers of tables shown
	Verify          string // mark, ask, strict or off: the answer's numbers checked
	DBMaxRows       int64  // rows one sql(db=) query brings into the sandbox
	DBMaxBytes      int64  // bytes of values one sql(db=) query brings in
	Prices          map[string]Price
	// Sources are the databases sql(query, db=NAME) reaches, by name:
	// [sources.NAME] url = "postgres://…" or "mysql://…" (top level or in a profile) and
	// --db NAME=URL. The URLs may hold passwords: never shown unmasked.
	Sources map[string]string `json:"-"`
	// Dask is the cluster the kernel's client reaches; Address empty: none.
	Dask Dask

	// APIKeySource says where APIKey came from ("env OPENAI_API_KEY",
	// "api_key_cmd"), "" when no key is set.
	APIKeySource string
	File         string // the config file consulted
	FileLoaded   bool   // File existed and was read

	sources map[string]string // setting key -> where its value came from
}

// Overrides are the values set on the command line; zero means unset.
type Overrides struct {
	ConfigPath string
	Profile    string
	Model      string
	BaseURL    string
	ToolMode   string
	OutputDir  string
	Images     string
	Timeout    time.Duration
	MaxSteps   int
	Confirm    bool
	Share      string
	Verify     string
	DB         []string // --db NAME=URL or --db URL, repeatable
	Dask       string   // --dask ADDR: the Dask scheduler
	DaskData   []string // --dask-data NAME=URL, repeatable
}
