package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ResolveKey fills c.APIKey: from api_key_cmd when set (it wins), else from
// the environment variable named by api_key_env. No key is not an error
// here (local servers need none); Resolve decides what to do about it.
func ResolveKey(ctx context.Context, c *Config) error {
	return resolveKey(ctx, c, os.Getenv)
}

func resolveKey(ctx context.Context, c *Config, getenv func(string) string) error {
	c.APIKey, c.APIKeySource = "", ""
	if c.APIKeyCmd != "" {
		key, err := runKeyCmd(ctx, c.APIKeyCmd)
		if err != nil {
			return &Error{File: fileIfFrom(c, "api_key_cmd"), Where: c.Source("api_key_cmd"), Key: "api_key_cmd",
				Problem: err.Error(),
				Fix:     "run the command yourself in a shell to see why (quarry does not show its output: it may hold the key), or unset api_key_cmd to use " + displayEnvName(c.APIKeyEnv)}
		}
		c.APIKey, c.APIKeySource = key, "api_key_cmd"
		return nil
	}
	// An OpenAI key in the default variable is not sent to a local Ollama
	// that never asked for one; naming api_key_env opts in.
	if c.Provider == ProviderOllama && !c.configured("api_key_env") {
		return nil
	}
	if v := strings.TrimSpace(getenv(c.APIKeyEnv)); v != "" {
		c.APIKey, c.APIKeySource = v, "env "+displayEnvName(c.APIKeyEnv)
	}
	return nil
}

// runKeyCmd runs the command through the shell and returns the first
// non-empty line it prints. Its output never goes into an error.
func runKeyCmd(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, keyCmdTimeout)
	defer cancel()
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, command)
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: 64 << 10}
	cmd.Stderr = io.Discard
	cmd.WaitDelay = 2 * time.Second // a child keeping stdout open must not hang us
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("the key command did not finish within %s", keyCmdTimeout)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("the key command failed with exit status %d", exit.ExitCode())
		}
		return "", errors.New("the key command could not be run")
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if k := strings.TrimSpace(line); k != "" {
			return k, nil
		}
	}
	return "", errors.New("the key command printed nothing")
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return len(p), nil
	}
	q := p
	if len(q) > l.n {
		q = q[:l.n]
	}
	l.n -= len(q)
	l.w.Write(q)
	return len(p), nil
}
