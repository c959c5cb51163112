package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// sandboxSaveCmd is `quarry sandbox save FILE`: this recipe's image as an
// archive that `quarry sandbox load FILE` puts into another machine's
// engine, with no registry or Debian mirror.
func (a *app) sandboxSaveCmd() *cobra.Command {
	var gz bool
	c := &cobra.Command{
		Use:   "save FILE",
		Short: "Write the sandbox image to FILE (- for standard output), for a machine with no registry or mirror",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(c, "name the archive to write (FILE, or - for standard output)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			if name == "-" && isTerminal(a.stdout) {
				return usagef(c, "standard output is a terminal: name a FILE, or redirect it")
			}
			return a.sandboxSave(name, gz || strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".tgz"))
		},
	}
	c.Flags().BoolVar(&gz, "gzip", false, "compress the archive (also when FILE ends in .gz)")
	return c
}

func (a *app) sandboxSave(name string, compress bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := sandbox.Connect(ctx, a.note)
	if err != nil {
		return engineFailure("sandbox save", err)
	}
	defer e.Close()
	start := time.Now()
	fmt.Fprintf(a.stderr, "saving %s from %s to %s\n", image.Ref(), e.Describe(), name)
	var info image.ArchiveInfo
	var size int64
	if name == "-" {
		cw := &countingWriter{w: a.stdout}
		info, err = image.Save(ctx, e, cw, compress)
		size = cw.n
	} else {
		info, size, err = saveToFile(ctx, e, name, compress)
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted{"sandbox save: interrupted; nothing was written"}
		}
		return engineFailure("sandbox save", err)
	}
	fmt.Fprintf(a.stderr, "saved %s (recipe %s%s): %s in %s\n", name, info.Recipe, archiveExtras(info), kernel.FormatSize(size), time.Since(start).Round(100*time.Millisecond))
	return nil
}

// saveToFile writes next to name and renames at the end, so an interrupted
// save leaves no half archive under the name.
func saveToFile(ctx context.Context, e *engine.Engine, name string, compress bool) (image.ArchiveInfo, int64, error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".partial-")
	if err != nil {
		return image.ArchiveInfo{}, 0, fmt.Errorf("archive: %w", err)
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	cw := &countingWriter{w: f}
	info, err := image.Save(ctx, e, cw, compress)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	return info, cw.n, err
}

// sandboxLoadCmd is `quarry sandbox load FILE`.
func (a *app) sandboxLoadCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "load FILE",
		Short: "Load a sandbox image archive made by quarry sandbox save (- reads standard input)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(c, "name the archive to load (FILE, or - for standard input)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.sandboxLoad(args[0]) },
	}
}

func (a *app) sandboxLoad(name string) error {
	in := a.stdin
	if name != "-" {
		// The header first, so a wrong file is named before the engine is asked.
		if err := checkArchive(name); err != nil {
			return inputError{fmt.Errorf("sandbox load: %s: %w", name, err)}
		}
		f, err := os.Open(name)
		if err != nil {
			return inputError{fmt.Errorf("sandbox load: %w", err)}
		}
		defer f.Close()
		in = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := sandbox.Connect(ctx, a.note)
	if err != nil {
		return engineFailure("sandbox load", err)
	}
	defer e.Close()
	start := time.Now()
	info, loaded, err := image.Load(ctx, e, in, a.stderr)
	switch {
	case err != nil && (info.Recipe == "" || errors.Is(err, image.ErrArchiveRecipe)):
		return inputError{fmt.Errorf("sandbox load: %s: %w", name, err)}
	case err != nil && ctx.Err() != nil:
		return interrupted{"sandbox load: interrupted"}
	case err != nil:
		return engineFailure("sandbox load: "+name, err)
	case !loaded:
		fmt.Fprintf(a.stderr, "%s: the engine (%s) has this very image already; nothing loaded\n", image.Ref(), e.Describe())
	default:
		fmt.Fprintf(a.stderr, "loaded %s into %s in %s (saved from %s on %s)\n", image.Ref(), e.Describe(),
			time.Since(start).Round(100*time.Millisecond), info.Engine, info.Saved)
	}
	if info.Extras != nil {
		if cur, err := image.CurrentImage(ctx, e); err == nil && cur.Ref != image.Ref() {
			fmt.Fprintf(a.stderr, "sessions use %s%s\n", cur.Ref, archiveExtras(info))
			fmt.Fprintln(a.stdout, cur.Ref)
			return nil
		}
	}
	fmt.Fprintln(a.stdout, image.Ref())
	return nil
}

// archiveExtras names an archive's extras: ", extras python3-xgboost 3.3.0-1".
func archiveExtras(info image.ArchiveInfo) string {
	if info.Extras == nil {
		return ""
	}
	var names []string
	for _, p := range info.Extras.Packages {
		if p.Kind == image.ExtraRequested {
			names = append(names, p.Name+" "+p.Version)
		}
	}
	return ", extras " + strings.Join(names, ", ")
}

// checkArchive reads a file's archive header and checks its recipe.
func checkArchive(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("cannot open the archive: %w", err)
	}
	defer f.Close()
	info, _, err := image.ReadArchiveInfo(f)
	if err != nil {
		return err
	}
	return info.CheckRecipe()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
