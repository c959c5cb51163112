package image

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// jsonMessage is the engine's progress line for import and build.
type jsonMessage struct {
	Stream string `json:"stream"`
	Status string `json:"status"`
	Error  string `json:"error"`
	Detail struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readJSONMessages copies the engine's progress to w and returns the first
// error the engine reported in the stream.
func readJSONMessages(r io.Reader, w io.Writer, prefix string) error {
	dec := json.NewDecoder(r)
	for {
		var m jsonMessage
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading engine progress: %w", err)
		}
		if m.Error != "" || m.Detail.Message != "" {
			return errors.New(strings.TrimSpace(m.Error + " " + m.Detail.Message))
		}
		for _, line := range strings.Split(strings.TrimRight(m.Stream+m.Status, "\n"), "\n") {
			if strings.TrimSpace(line) != "" {
				fmt.Fprintf(w, "%s: %s\n", prefix, line)
			}
		}
	}
}

// runLogged runs cmd with its output copied to w line by line, prefixed.
func runLogged(ctx context.Context, w io.Writer, prefix string, cmd *exec.Cmd) error {
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			fmt.Fprintf(w, "%s: %s\n", prefix, sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-done
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
