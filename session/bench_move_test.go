package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkSandboxMove is a session of 20 cells carried into another
// sandbox with its state rebuilt: move is the move to the image with an
// extra (a new container on it, the file attached again, the 20 cells
// replayed), beside restart, the rebuild after the container was killed
// (the same container started again, the 20 cells replayed), and the 20
// cells replayed alone.
func BenchmarkSandboxMove(b *testing.B) {
	e := sandboxtest.Engine(b)
	repo := apttest.New(b, apttest.Hello, apttest.Greet)
	in := repo.Installer(e)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	p, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}})
	if err != nil {
		b.Fatal(err)
	}
	derived, err := in.Build(ctx, nil, p)
	if err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(b.TempDir(), "q1.csv")
	var rows strings.Builder
	rows.WriteString("region,revenue\n")
	for i := 0; i < 5000; i++ {
		rows.WriteString([]string{"North", "South", "West", "East"}[i%4] + ",1000\n")
	}
	os.WriteFile(data, []byte(rows.String()), 0o644)
	s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", b.TempDir()), Engine: e, Index: b.TempDir()})
	defer s.Close()
	go s.Start(ctx)
	if _, err := s.Attach(ctx, data); err != nil {
		b.Fatal(err)
	}
	t := turnRecord{question: "twenty cells"}
	for i := 1; i <= 20; i++ {
		code := replayCells[(i-1)%len(replayCells)].Code
		if r, err := s.exec(ctx, code, nil); err != nil || r.Error != nil {
			b.Fatalf("%v %+v", err, r.Error)
		}
		t.cells = append(t.cells, cellRecord{num: i, code: code, ok: true})
	}
	s.turns = []turnRecord{t}
	refs := []string{derived.Ref, image.Ref()}
	b.Run("move", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, line, err := s.rebuild(ctx, refs[i%2], false); err != nil || !strings.Contains(line, "20 cells replayed") {
				b.Fatalf("%s %v", line, err)
			}
			i++
		}
	})
	b.Run("restart", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if _, err := e.Client().ContainerKill(ctx, s.sb.ContainerID(), client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
				b.Fatal(err)
			}
			for s.sb.Alive() {
				time.Sleep(10 * time.Millisecond)
			}
			b.StartTimer()
			if _, line, err := s.rebuild(ctx, "", false); err != nil || !strings.Contains(line, "20 cells replayed") {
				b.Fatalf("%s %v", line, err)
			}
		}
	})
	b.Run("replay-only", func(b *testing.B) {
		for b.Loop() {
			if n, failed := s.replayAll(ctx, s.sb, false); n != 20 || len(failed) > 0 {
				b.Fatal(fmt.Sprint(failed))
			}
		}
	})
}
