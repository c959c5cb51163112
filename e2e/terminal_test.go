package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

// The chat in real terminal emulators under Xvfb, as an analyst sees it:
// the fake model runs the variance report (a pivot table and a bar chart)
// in the real sandbox; a screenshot of the window shows whether the chart
// arrived as a picture (its bar colours in full, anti-aliased detail inside
// single cells) or as half-blocks (two colours a cell), and whether the
// status bar is one colour end to end. QUARRY_SHOTS=DIR keeps the shots.

const terminalVarianceCode = variancePivot + `ax = pivot.plot(kind="bar", title="Variance vs budget", color=["#1f77b4", "#ff7f0e"])
pivot`

// The bar colours of the chart, as matplotlib draws them.
var (
	barBlue   = color.RGBA{0x1f, 0x77, 0xb4, 255}
	barOrange = color.RGBA{0xff, 0x7f, 0x0e, 255}
)

type terminalCase struct {
	name  string
	bin   string
	args  func(cmd []string) []string // the terminal's command line around quarry's
	image bool                        // the chart must arrive as a picture (Sixel)
}

func TestTerminalScreenshots(t *testing.T) {
	requireX(t)
	sandboxtest.Engine(t)
	cases := []terminalCase{
		{name: "xterm-vt340", bin: "xterm", image: true, args: func(cmd []string) []string {
			return append([]string{"-ti", "vt340", "-geometry", "110x44+0+0", "-fa", "DejaVu Sans Mono", "-fs", "9", "-e"}, cmd...)
		}},
		{name: "kitty-0.26", bin: "kitty", image: false, args: func(cmd []string) []string {
			return append([]string{"-o", "remember_window_size=no", "-o", "initial_window_width=110c", "-o", "initial_window_height=44c",
				"-o", "confirm_os_window_close=0", "-o", "font_size=9",
				"-o", "background=#ffffff", "-o", "foreground=#000000"}, cmd...)
		}},
		{name: "mlterm", bin: "mlterm", image: true, args: func(cmd []string) []string {
			return append([]string{"-g", "110x44+0+0", "-w", "9", "-e"}, cmd...)
		}},
	}
	bin := quarryBin(t)
	display := startXvfb(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosttest.Tool(t, c.bin)
			w := runInTerminal(t, c, bin, display)
			checkShot(t, c, w.shot("answer"))
			if !c.image {
				return
			}
			// The table viewer covers the chart: it is cleared, not left
			// behind the table; closing the viewer paints it again.
			w.key("ctrl+t")
			if blue, orange := barPixels(w.shot("table")); blue+orange > 0 {
				t.Errorf("%s: %d chart pixels left over the table viewer", c.name, blue+orange)
			}
			w.key("q")
			checkShot(t, c, w.shot("back"))
			// Scrolled up by a page, the chart moves down with the text
			// (partly off the screen): no copy of it stays where it was.
			w.key("Page_Up")
			img := w.shot("scrolled")
			if blue, orange := barPixels(img); blue+orange == 0 {
				t.Errorf("%s: the chart vanished when scrolled", c.name)
			}
			w.key("ctrl+End")
			checkShot(t, c, w.shot("bottom"))
		})
	}
}

// requireX skips without Xvfb, ImageMagick and xdotool, or fails in CI.
func requireX(t *testing.T) {
	t.Helper()
	hosttest.Tool(t, "Xvfb")
	hosttest.Tool(t, "import")
	hosttest.Tool(t, "xdotool")
	hosttest.Path(t, "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
}

// startXvfb starts a virtual X server on a free display and returns it.
func startXvfb(t *testing.T) string {
	t.Helper()
	for n := 90; n < 120; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		d := ":" + strconv.Itoa(n)
		x := exec.Command("Xvfb", d, "-screen", "0", "1280x1000x24", "-nolisten", "tcp")
		if err := x.Start(); err != nil {
			t.Fatalf("Xvfb: %v", err)
		}
		t.Cleanup(func() { x.Process.Kill(); x.Wait() })
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
				return d
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("Xvfb on %s did not start", d)
	}
	t.Fatal("no free X display")
	return ""
}

// window is a terminal running the chat.
type window struct {
	shot func(name string) image.Image
	key  func(keys ...string)
}

// runInTerminal runs the chat in the terminal, asks for the variance
// report and waits for the answer.
func runInTerminal(t *testing.T, c terminalCase, bin, display string) window {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	writeQuarters(t, data)
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if msgs[len(msgs)-1].Role == openai.ChatMessageRoleTool {
			return openaitest.Reply{Text: "## Variance\n\nSales ran **over budget** in Q1 and under in Q2.", ChunkSize: 8, Delay: 10 * time.Millisecond}
		}
		return openaitest.ToolCalls(terminalVarianceCode)
	})
	out := filepath.Join(dir, "out")
	// What the terminal sets (TERM, COLORTERM, KITTY_WINDOW_ID) goes
	// through; the rest of the test's environment does not.
	env := append(hostEnv(dir), modelEnv(srv.URL, "gpt-4o-mini")...)
	env = append(env, "LANG=C.UTF-8", "QUARRY_THEME=light")
	script := `exec env -i TERM="$TERM" COLORTERM="$COLORTERM" KITTY_WINDOW_ID="$KITTY_WINDOW_ID" "$@"`
	cmd := append([]string{"/bin/sh", "-c", script, "sh", "env"}, env...)
	cmd = append(cmd, bin, "--output-dir", out, "data/q1.csv", "data/q2.csv")
	term := exec.Command(c.bin, c.args(cmd)...)
	term.Dir = dir
	term.Env = append(os.Environ(), "DISPLAY="+display)
	var termOut bytes.Buffer
	term.Stdout, term.Stderr = &termOut, &termOut
	if err := term.Start(); err != nil {
		t.Fatalf("%s: %v", c.bin, err)
	}
	t.Cleanup(func() {
		term.Process.Kill()
		term.Wait()
	})
	x := func(args ...string) string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	record := filepath.Join(out, session.RecordName)
	waitFile(t, record, "", 2*time.Minute, &termOut)
	waitFile(t, record, `"kind":"input"`, 3*time.Minute, &termOut) // the sandbox is up and a file attached
	win := ""
	for deadline := time.Now().Add(20 * time.Second); win == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(term.Process.Pid))
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		b, _ := cmd.Output()
		if f := strings.Fields(string(b)); len(f) > 0 {
			win = f[0]
		}
	}
	if win == "" {
		t.Fatalf("no window of %s", c.bin)
	}
	x("xdotool", "windowfocus", "--sync", win)
	x("xdotool", "type", "--delay", "20", "variance report by department")
	x("xdotool", "key", "Return")
	waitFile(t, record, `"kind":"answer"`, 2*time.Minute, &termOut)
	time.Sleep(3 * time.Second) // the figure is prepared and painted after the answer
	shot := func(name string) image.Image {
		t.Helper()
		file := filepath.Join(dir, name+".png")
		x("import", "-window", win, file)
		if keep := os.Getenv("QUARRY_SHOTS"); keep != "" {
			os.MkdirAll(keep, 0o755)
			b, _ := os.ReadFile(file)
			os.WriteFile(filepath.Join(keep, c.name+"-"+name+".png"), b, 0o644)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		return img
	}
	key := func(keys ...string) {
		t.Helper()
		x(append([]string{"xdotool", "key"}, keys...)...)
		time.Sleep(time.Second)
	}
	return window{shot: shot, key: key}
}

// waitFile waits until path exists and holds want.
func waitFile(t *testing.T, path, want string, timeout time.Duration, log *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			t.Fatalf("timed out waiting for %q in %s:\n%s\nterminal output:\n%s", want, path, tail(string(b)), log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}

// barPixels counts the pixels of the chart's two bar colours.
func barPixels(img image.Image) (blue, orange int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.At(x, y)
			if nearColor(p, barBlue, 14) {
				blue++
			}
			if nearColor(p, barOrange, 14) {
				orange++
			}
		}
	}
	return blue, orange
}

func nearColor(p color.Color, want color.RGBA, tol int) bool {
	r, g, bl, _ := p.RGBA()
	d := func(a uint32, w uint8) int { return max(int(a>>8)-int(w), int(w)-int(a>>8)) }
	return d(r, want.R) <= tol && d(g, want.G) <= tol && d(bl, want.B) <= tol
}

// checkShot looks at the screenshot's pixels: the chart's bars in their
// colours; drawn as a picture (the black of its title, ticks and axes kept)
// or as half-blocks (every such line averaged away into grey); and the status
// bar one colour from edge to edge.
func checkShot(t *testing.T, c terminalCase, img image.Image) {
	t.Helper()
	b := img.Bounds()
	near := nearColor
	// The chart: where its bar colours are.
	box := image.Rectangle{Min: b.Max, Max: b.Min}
	blue, orange := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.At(x, y)
			isBlue, isOrange := near(p, barBlue, 14), near(p, barOrange, 14)
			if isBlue {
				blue++
			}
			if isOrange {
				orange++
			}
			if isBlue || isOrange {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	t.Logf("%s: %d blue and %d orange bar pixels in %v", c.name, blue, orange, box)
	if blue < 300 || orange < 300 {
		t.Fatalf("%s: the chart's bars are not on the screen (%d blue, %d orange pixels)", c.name, blue, orange)
	}
	// Dark pixels inside the chart: its title, tick labels and axes, which
	// a picture keeps and half-blocks average away into light grey.
	black := 0
	for y := max(box.Min.Y-40, b.Min.Y); y < box.Max.Y; y++ {
		for x := max(box.Min.X-40, b.Min.X); x < min(box.Max.X+10, b.Max.X); x++ {
			if near(img.At(x, y), color.RGBA{0, 0, 0, 255}, 110) {
				black++
			}
		}
	}
	t.Logf("%s: %d dark pixels in the chart", c.name, black)
	if c.image && black < 400 {
		t.Errorf("%s: the chart is not a picture: %d dark pixels in it, want its text and axes", c.name, black)
	}
	if !c.image && black > 100 {
		t.Errorf("%s: %d dark pixels in the chart: want half-blocks", c.name, black)
	}
	checkStatusBar(t, c.name, img)
}

// checkStatusBar finds the status bar (the lowest full-width band of one
// colour other than the window's white) and checks it has no holes: no run
// of the window's background inside it.
func checkStatusBar(t *testing.T, name string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	bg := color.RGBA{255, 255, 255, 255} // every terminal here runs on white
	same := func(p, q color.Color) bool {
		r1, g1, b1, _ := p.RGBA()
		r2, g2, b2, _ := q.RGBA()
		return r1>>10 == r2>>10 && g1>>10 == g2>>10 && b1>>10 == b2>>10
	}
	for y := b.Max.Y - 1; y > b.Max.Y*3/4; y-- {
		counts := map[color.RGBA]int{}
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}]++
		}
		var mode color.RGBA
		for c, n := range counts {
			if n > counts[mode] {
				mode = c
			}
		}
		if counts[mode] < b.Dx()/2 || same(mode, bg) {
			continue
		}
		// The bar's row: from its first pixel to the window's right edge,
		// less the terminal's border, nothing of the window's background.
		first, last := -1, -1
		for x := b.Min.X; x < b.Max.X; x++ {
			if same(img.At(x, y), mode) {
				if first < 0 {
					first = x
				}
				last = x
			}
		}
		run, worst := 0, 0
		for x := first; x <= last; x++ {
			if same(img.At(x, y), bg) {
				run++
				worst = max(worst, run)
			} else {
				run = 0
			}
		}
		t.Logf("%s: status bar at y=%d in %v from x=%d to %d, longest hole %d px", name, y, mode, first, last, worst)
		if last-first < b.Dx()*9/10 {
			t.Errorf("%s: the status bar spans x=%d..%d of %d", name, first, last, b.Dx())
		}
		if worst > 3 {
			t.Errorf("%s: the status bar has a hole of %d pixels of the window's background", name, worst)
		}
		return
	}
	t.Errorf("%s: no status bar found", name)
}
