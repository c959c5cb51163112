// Package render turns untrusted text and kernel results into terminal text
// for both front ends: the terminal sanitizer, Markdown through glamour,
// tables through lipgloss, and figures as kitty, iTerm2, Sixel or half-block
// images. It must not import agent, sandbox, session, ui or headless.
//
// Rule: every string that came from the model, the sandbox, a file name or a
// CSV header goes through Sanitize or SanitizeLine before it reaches a
// terminal. The other functions below sanitize their inputs themselves; the
// escapes they return (colours, hyperlinks, image protocols) are quarry's own
// and must not be sanitized again.
//
// API summary (for ui and headless):
//
//	// sanitize.go — all untrusted text
//	func Sanitize(s string) string     // multi-line: keeps \n and \t, "\r\n"→"\n", a lone \r keeps what is
//	                                   // written after it on that line (progress bars); strips every escape
//	                                   // sequence (CSI incl. SGR, OSC, DCS, APC, PM, SOS, 7- and 8-bit), other
//	                                   // C0/C1 controls, DEL, bidi overrides, kitty placeholders;
//	                                   // invalid UTF-8 → U+FFFD
//	func SanitizeLine(s string) string // one line (file names, column names, chips): \n \r \t become spaces
//
//	// markdown.go, stream.go — glamour; NOT safe for concurrent use (one per goroutine / tea.Model)
//	type Style string                  // StyleDark, StyleLight, StyleNoColor (attributes, no colour), StyleNoTTY (no escapes at all), StyleASCII
//	func DetectStyle(getenv func(string) string, darkBackground bool) Style // NO_COLOR → StyleNoColor, TERM=dumb → StyleNoTTY
//	func NewMarkdown() *Markdown       // glamour renderers cached per (width, style); dark and light are
//	                                   // the chat's own style (markdown_style.go): headings without "##"
//	func (m *Markdown) Render(text string, width int, style Style) (string, error) // sanitizes text first
//	func (m *Markdown) NewStream(width int, style Style) *Stream // one growing answer
//	func (s *Stream) Render(full string) (string, error) // full = the whole answer so far (not a delta);
//	                                   // re-renders only the last stable block + tail; bytes == Markdown.Render
//	func (s *Stream) Resize(width int) // drops the cache when the width changes
//	Glamour's output is cleaned again (SGR only: "&#27;" entities decode to controls),
//	its OSC 8 links are removed (the URL stays visible as text). An answer
//	with a link reference definition ("[x]: url") is rendered whole on every update.
//
//	// table.go — kernel.Table
//	type TableOptions struct{ Width, MaxRows int; Color, Dark, Thousands bool } // Width 0 = 80; MaxRows 0 = all of Head
//	func Table(t *kernel.Table, opt TableOptions) string  // lipgloss table fitted to Width: cells as pandas
//	                                   // displays them (kernel.Table.Display), numbers right-aligned and never
//	                                   // cut, text and labels cut with "…" before a column is dropped,
//	                                   // "+N columns not shown", "⋯" row before Tail, "1 row × 1 column"
//	type Grid struct{ Header []string; Rows [][]string; Gap int; Numeric []bool; Hidden int; IndexCols int }
//	func NewGrid(t *kernel.Table, maxRows int, thousands bool) Grid // the cells Table lays out, sanitized;
//	                                   // the exports lay out the same grid as Markdown and HTML
//	func TableShape(t *kernel.Table) string // "1,234 rows × 1 column"
//	func ColumnsNotShown(n int) string      // "+2 columns not shown"
//	func GroupThousands(s string) string // "46624.99" → "46,624.99"; anything not a plain number as it is
//	func GroupInt(n int) string          // 1234567 → "1,234,567" (token counts, rows)
//	func IsNumericDtype(d string) bool   // int*, uint*, float*, complex*
//
//	// termcaps.go — what the terminal draws, from its answers
//	const TerminalQueries                                       // XTVERSION, kitty's version, kitty graphics,
//	                                   // XTSMGRAPHICS, CSI 16 t, CSI 14 t, then DA1 (answered last)
//	type Terminal struct{ Getenv; Version, KittyVersion string; KittyGraphics bool; SixelColors int;
//	                      DA1 []int; Answered bool; CellW, CellH int }
//	func (t Terminal) Images() (Protocol, string) // the protocol by capability, and why (for doctor)
//	func (t Terminal) Describe() string           // the name it gave, sanitized
//	func (t *Terminal) Reply(ev uv.Event) bool    // records one decoded reply (chat and doctor alike)
//
//	// image*.go — figures (PNG bytes the harvest checked; limits in kernel.CheckPNG)
//	type Protocol string // ProtocolAuto, ProtocolKitty, ProtocolITerm, ProtocolSixel, ProtocolBlocks, ProtocolOff
//	func ParseProtocol(s string) (Protocol, error)                          // the `images =` setting
//	type ColorDepth int // ColorNone, Color256, ColorTrue
//	func DetectColorDepth(getenv func(string) string) ColorDepth // NO_COLOR, COLORTERM, TERM, TERM_PROGRAM
//	func DecodePNG(data []byte) (image.Image, error)             // kernel.CheckPNG, then decode
//	func ImageCells(w, h, cols, rows int) (c, r int)             // cells a figure will occupy (reserve rows)
//	func KittyUnicode(data []byte, id uint32, cols, rows int) KittyImage // for Bubble Tea: send .Transmit
//	                                   // once with tea.Raw, print .Lines (placeholder text) in the View
//	func KittyDelete(id uint32) string                           // free an image sent with KittyUnicode
//	func TmuxPassthrough(s string) string                        // wrap escapes for tmux's allow-passthrough
//	func HalfBlocks(img image.Image, cols, rows int, depth ColorDepth) string // ▀ lines, no trailing \n
//	func Hyperlink(path, text string) string                     // OSC 8 file:// link; both sanitized
//	func FileURL(path string) string                             // file:// + percent-encoding
//	// Drawn at the cursor, outside Bubble Tea's cell model: ui/overlay.go paints them.
//	func NewSixelFigure(img image.Image, w, h int, bg color.Color) *SixelFigure // scaled, ≤ 256 colours, once
//	func (f *SixelFigure) Sixel(top, bottom int) string          // a band of its pixel rows as Sixel
//	func ITerm(data []byte, name string, cols, rows int) string  // OSC 1337 File=inline=1, fills the cells
//
//	// result.go — one cell's outcome, the same words in the chat and the headless progress
//	func CellSummary(r *kernel.Result) string // "done in 1.2s", "failed: KeyError in 300ms", "timed out after 2m00s"
//	func FormatDuration(d time.Duration) string // 450ms, 2.0s, 1m05s
//
// Byte sizes are written with kernel.FormatSize (KiB, MiB, GiB), which the
// model's view uses too.
package render
