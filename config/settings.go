package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/secret"
)

// kind is the type of value a setting holds; it decides parsing, the type
// check on file values and the fix suggested for a bad value.
type kind int

const (
	kindString kind = iota
	kindEnum
	kindDuration
	kindSize
	kindFloat
	kindInt
	kindBool
)

// Setting describes one configuration key. Its Help feeds the template that
// `quarry config init` writes, `quarry config` and the error messages.
type Setting struct {
	Key     string   // TOML key
	Env     []string // environment variables, strongest first
	Flag    string   // command-line flag without dashes, "" for none
	Help    string
	Example string // a valid TOML value, used in the template and in fixes
	// defaultText is the default as the template says it, where the
	// zero value stands for one applied later.
	defaultText string

	kind     kind
	choices  []string
	min, max float64
	validate func(string) string // extra check for strings: a problem or ""
	set      func(*Config, any)
	get      func(Config) string
}

// Provider names.
const (
	ProviderOpenAI     = "openai"
	ProviderAzure      = "azure"
	ProviderOllama     = "ollama"
	ProviderCompatible = "compatible"
)

// Environment variables of the configuration that are no setting.
const (
	ConfigEnv     = "QUARRY_CONFIG"      // the config file
	ProfileEnv    = "QUARRY_PROFILE"     // the profile
	OllamaHostEnv = "QUARRY_OLLAMA_HOST" // where to look for Ollama
)

// Built-in defaults that other packages and the template mention.
const (
	DefaultModel           = "gpt-4.1-mini"
	DefaultAPIKeyEnv       = "OPENAI_API_KEY"
	DefaultAzureAPIVersion = "2024-10-21"
	DefaultOutputDir       = "./quarry-output"
	OpenAIBaseURL          = "https://api.openai.com/v1"
)

// How an answer's numbers are checked (verify).
const (
	VerifyMark   = "mark"   // mark the numbers no output holds
	VerifyAsk    = "ask"    // ask the model once to compute or drop them, then mark
	VerifyStrict = "strict" // mark; a headless run fails when some remain
	VerifyOff    = "off"
)

// What the model is shown of attached files (share).
const (
	ShareValues = "values" // the profile with example values and first rows
	ShareSchema = "schema" // names, types, row and missing counts only
)

func defaults() Config {
	return Config{
		Model:        DefaultModel,
		APIKeyEnv:    DefaultAPIKeyEnv,
		ToolMode:     "auto",
		Timeout:      2 * time.Minute,
		Memory:       2 << 30,
		CPUs:         2,
		OutputDir:    DefaultOutputDir,
		Images:       "auto",
		MaxSteps:     20,
		DBMaxRows:    1_000_000,
		DBMaxBytes:   512 << 20,
		Theme:        "auto",
		Share:        ShareValues,
		Stream:       true,
		StallTimeout: 90 * time.Second,
		Thousands:    true,
		Verify:       VerifyMark,
		Prices:       builtinPrices(),
	}
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// settings in the order the template and `quarry config` show them.
var settings = []Setting{
	{
		Key: "provider", Env: []string{"QUARRY_PROVIDER"},
		Help:    "The API: openai, azure (Azure OpenAI), ollama, or compatible (any OpenAI-compatible server: vLLM, LM Studio, llama.cpp, OpenRouter, Groq, DeepSeek...). Unset, it follows base_url.",
		Example: `"openai"`, kind: kindEnum, choices: []string{ProviderOpenAI, ProviderAzure, ProviderOllama, ProviderCompatible},
		set: func(c *Config, v any) { c.Provider = v.(string) },
		get: func(c Config) string { return c.Provider },
	},
	{
		Key: "model", Env: []string{"QUARRY_MODEL"}, Flag: "model",
		Help:    "The model name (for Azure: the deployment name).",
		Example: `"` + DefaultModel + `"`, kind: kindString,
		validate: func(s string) string {
			if strings.TrimSpace(s) == "" {
				return "the model name is empty"
			}
			return ""
		},
		set: func(c *Config, v any) { c.Model = strings.TrimSpace(v.(string)) },
		get: func(c Config) string { return c.Model },
	},
	{
		Key: "base_url", Env: []string{"QUARRY_BASE_URL", "OPENAI_BASE_URL"}, Flag: "base-url",
		Help:    "The API base URL; unset means OpenAI's. For Azure, the resource endpoint (https://NAME.openai.azure.com).",
		Example: `"http://127.0.0.1:11434/v1"`, kind: kindString, validate: checkURL,
		set: func(c *Config, v any) { c.BaseURL = strings.TrimRight(strings.TrimSpace(v.(string)), "/") },
		get: func(c Config) string { return c.BaseURL },
	},
	{
		Key: "api_key_env", Env: []string{"QUARRY_API_KEY_ENV"},
		Help:    "The environment variable that holds the API key. Quarry never reads a key from this file and never writes one anywhere.",
		Example: `"` + DefaultAPIKeyEnv + `"`, kind: kindString,
		validate: func(s string) string {
			if !envNameRE.MatchString(s) {
				// Never echo the value: people paste the key itself here.
				return "api_key_env must be the NAME of an environment variable (such as OPENAI_API_KEY), not the key itself"
			}
			return ""
		},
		set: func(c *Config, v any) { c.APIKeyEnv = v.(string) },
		get: func(c Config) string { return displayEnvName(c.APIKeyEnv) },
	},
	{
		Key: "api_key_cmd", Env: []string{"QUARRY_API_KEY_CMD"},
		Help:    "A command that prints the API key, e.g. \"pass show openai\" (run with sh -c; the first line of its output is used). When set, it wins over api_key_env.",
		Example: `"pass show openai"`, kind: kindString,
		set: func(c *Config, v any) { c.APIKeyCmd = strings.TrimSpace(v.(string)) },
		get: func(c Config) string { return secret.Shapes(c.APIKeyCmd) },
	},
	{
		Key: "azure_api_version", Env: []string{"QUARRY_AZURE_API_VERSION"},
		Help:    "Azure OpenAI's api-version parameter (default " + DefaultAzureAPIVersion + "); used only with provider azure.",
		Example: `"` + DefaultAzureAPIVersion + `"`, kind: kindString, defaultText: DefaultAzureAPIVersion,
		set: func(c *Config, v any) { c.AzureAPIVersion = strings.TrimSpace(v.(string)) },
		get: func(c Config) string { return c.AzureAPIVersion },
	},
	{
		Key: "tool_mode", Env: []string{"QUARRY_TOOL_MODE"}, Flag: "tool-mode",
		Help:    "How the model runs code: native tool calls, markdown code blocks (for models without tool calls), or auto (native, falling back to markdown).",
		Example: `"auto"`, kind: kindEnum, choices: []string{"auto", "native", "markdown"},
		set: func(c *Config, v any) { c.ToolMode = v.(string) },
		get: func(c Config) string { return c.ToolMode },
	},
	{
		Key: "max_steps", Env: []string{"QUARRY_MAX_STEPS"}, Flag: "max-steps",
		Help:    "The most cells the model may run for one answer.",
		Example: `20`, kind: kindInt, min: 1, max: 1000,
		set: func(c *Config, v any) { c.MaxSteps = int(v.(int64)) },
		get: func(c Config) string { return strconv.Itoa(c.MaxSteps) },
	},
	{
		Key: "confirm", Env: []string{"QUARRY_CONFIRM"}, Flag: "confirm",
		Help:    "Show each cell and wait for y/n/e before it runs.",
		Example: `false`, kind: kindBool,
		set: func(c *Config, v any) { c.Confirm = v.(bool) },
		get: func(c Config) string { return strconv.FormatBool(c.Confirm) },
	},
	{
		Key: "thousands", Env: []string{"QUARRY_THOUSANDS"},
		Help:    "Group the digits of numbers in the tables the chat shows (46,624.99); false shows them as pandas does (46624.99).",
		Example: `true`, kind: kindBool,
		set: func(c *Config, v any) { c.Thousands = v.(bool) },
		get: func(c Config) string { return strconv.FormatBool(c.Thousands) },
	},
	{
		Key: "verify", Env: []string{"QUARRY_VERIFY"}, Flag: "verify",
		Help: "Check every number of an answer against the outputs of its cells: mark (show the ones no output holds), ask (send the model one follow-up naming them, then mark what remains), " +
			"strict (mark; quarry -p exits 1 when some remain) or off. See docs/usage.md, \"Grounded answers\".",
		Example: `"mark"`, kind: kindEnum, choices: []string{VerifyMark, VerifyAsk, VerifyStrict, VerifyOff},
		set: func(c *Config, v any) { c.Verify = v.(string) },
		get: func(c Config) string { return c.Verify },
	},
	{
		Key: "share", Env: []string{"QUARRY_SHARE"}, Flag: "share",
		Help: "What the model is shown of attached files: values (names, types, row and missing counts, a few example values per column and the first rows) or schema (names, types, row and missing counts only, and the model is told to print only aggregates). " +
			"Either way, what the model's code prints reaches the model: see docs/configuration.md.",
		Example: `"values"`, kind: kindEnum, choices: []string{ShareValues, ShareSchema},
		set: func(c *Config, v any) { c.Share = v.(string) },
		get: func(c Config) string { return c.Share },
	},
	{
		Key: "stream", Env: []string{"QUARRY_STREAM"},
		Help:    "Stream answers as the model writes them; false waits for each whole answer, for gateways and proxies that refuse or break streaming. A server that refuses to stream is noticed and switched by itself.",
		Example: `true`, kind: kindBool,
		set: func(c *Config, v any) { c.Stream = v.(bool) },
		get: func(c Config) string { return strconv.FormatBool(c.Stream) },
	},
	{
		Key: "stall_timeout", Env: []string{"QUARRY_STALL_TIMEOUT"},
		Help:    "How long a streaming answer may send nothing at all (not even a keep-alive) before the attempt is given up and retried, as a Go duration; raise it for slow local servers.",
		Example: `"90s"`, kind: kindDuration, min: float64(time.Second), max: float64(time.Hour),
		set: func(c *Config, v any) { c.StallTimeout = v.(time.Duration) },
		get: func(c Config) string { return c.StallTimeout.String() },
	},
	{
		Key: "timeout", Env: []string{"QUARRY_TIMEOUT"}, Flag: "timeout",
		Help:    "Time limit for one cell, as a Go duration (\"90s\", \"2m\", \"1h\").",
		Example: `"2m"`, kind: kindDuration, min: float64(100 * time.Millisecond), max: float64(24 * time.Hour),
		set: func(c *Config, v any) { c.Timeout = v.(time.Duration) },
		get: func(c Config) string { return c.Timeout.String() },
	},
	{
		Key: "memory", Env: []string{"QUARRY_MEMORY"},
		Help:    "Memory limit of the sandbox (\"2g\", \"512m\"); no swap is added.",
		Example: `"2g"`, kind: kindSize, min: 64 << 20, max: 1 << 50,
		set: func(c *Config, v any) { c.Memory = v.(int64) },
		get: func(c Config) string { return formatSize(c.Memory) },
	},
	{
		Key: "db_max_rows", Env: []string{"QUARRY_DB_MAX_ROWS"},
		Help:    "The most rows one sql(query, db=NAME) query on a database source brings into the sandbox; the rest are not fetched and the cell says so. A call's max_rows= overrides it.",
		Example: `1000000`, kind: kindInt, min: 1, max: 1 << 40,
		set: func(c *Config, v any) { c.DBMaxRows = v.(int64) },
		get: func(c Config) string { return strconv.FormatInt(c.DBMaxRows, 10) },
	},
	{
		Key: "db_max_bytes", Env: []string{"QUARRY_DB_MAX_BYTES"},
		Help:    "The most bytes of values one sql(query, db=NAME) query brings into the sandbox (\"512m\"); the rows past it are not fetched and the cell says so.",
		Example: `"512m"`, kind: kindSize, min: 1 << 20, max: 1 << 50,
		set: func(c *Config, v any) { c.DBMaxBytes = v.(int64) },
		get: func(c Config) string { return formatSize(c.DBMaxBytes) },
	},
	{
		Key: "cpus", Env: []string{"QUARRY_CPUS"},
		Help:    "CPU limit of the sandbox, in cores (may be fractional).",
		Example: `2`, kind: kindFloat, min: 0.1, max: 1024,
		set: func(c *Config, v any) { c.CPUs = v.(float64) },
		get: func(c Config) string { return strconv.FormatFloat(c.CPUs, 'g', -1, 64) },
	},
	{
		Key: "warm", Env: []string{"QUARRY_WARM"}, Flag: "warm",
		Help:    "quarry -p: sandboxes kept started for the next runs by a holder process (quarry sandbox warm), which exits after 10 minutes without a run; 0 for none.",
		Example: `2`, kind: kindInt, min: 0, max: 32, defaultText: "0",
		set: func(c *Config, v any) { c.Warm = int(v.(int64)) },
		get: func(c Config) string { return strconv.Itoa(c.Warm) },
	},
	{
		Key: "image", Env: []string{"QUARRY_IMAGE"},
		Help:    "The sandbox image; unset means the one built from quarry's own recipe (quarry sandbox build).",
		Example: `"quarry-sandbox:custom"`, kind: kindString,
		set: func(c *Config, v any) { c.Image = strings.TrimSpace(v.(string)) },
		get: func(c Config) string { return c.Image },
	},
	{
		Key: "output_dir", Env: []string{"QUARRY_OUTPUT_DIR"}, Flag: "output-dir",
		Help:    "Folder under which each session gets its own folder for figures and files.",
		Example: `"` + DefaultOutputDir + `"`, kind: kindString,
		validate: func(s string) string {
			if strings.TrimSpace(s) == "" {
				return "the folder name is empty"
			}
			return ""
		},
		set: func(c *Config, v any) { c.OutputDir = expandHome(strings.TrimSpace(v.(string))) },
		get: func(c Config) string { return c.OutputDir },
	},
	{
		Key: "images", Env: []string{"QUARRY_IMAGES"}, Flag: "images",
		Help:    "How figures are shown: auto (detect the terminal), kitty, iterm, sixel, blocks (coloured half blocks) or off.",
		Example: `"auto"`, kind: kindEnum, choices: []string{"auto", "kitty", "iterm", "sixel", "blocks", "off"},
		set: func(c *Config, v any) { c.Images = v.(string) },
		get: func(c Config) string { return c.Images },
	},
	{
		Key: "theme", Env: []string{"QUARRY_THEME"},
		Help:    "Colours for a dark or light terminal background, or auto (ask the terminal).",
		Example: `"auto"`, kind: kindEnum, choices: []string{"auto", "dark", "light"},
		set: func(c *Config, v any) { c.Theme = v.(string) },
		get: func(c Config) string { return c.Theme },
	},
}

// Settings lists every setting, in display order.
func Settings() []Setting { return append([]Setting(nil), settings...) }

func lookupSetting(key string) (*Setting, bool) {
	for i := range settings {
		if settings[i].Key == key {
			return &settings[i], true
		}
	}
	return nil, false
}

func settingKeys() []string {
	keys := make([]string, 0, len(settings)+2)
	for _, s := range settings {
		keys = append(keys, s.Key)
	}
	return keys
}

func checkURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%q is not an http:// or https:// URL", secret.Shapes(secret.URL(s)))
	}
	return ""
}

// displayEnvName shows an environment variable name unless it looks like a
// pasted key (conventional names are short and upper-case).
func displayEnvName(name string) string {
	if len(name) <= 64 && regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(name) {
		return name
	}
	return "(a variable name that is not shown: it may be a key)"
}
