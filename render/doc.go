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
//	type Style string                  // StyleDark, StyleLight, StyleNoTTY (no escapes at all), StyleASCII
//	func DetectStyle(getenv func(string) string, darkBackground bool) Style // NO_COLOR, TERM=dumb → StyleNoTTY
//	func NewMarkdown() *Markdown       // glamour renderers cached per (width, style)
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
//	type TableOptions struct{ Width, MaxRows int; Color bool } // Width 0 = 80; MaxRows 0 = all of Head
//	func Table(t *kernel.Table, opt TableOptions) string  // lipgloss table fitted to Width: text cells cut
//	                                   // with "…" (numbers never), "+N columns not shown", "⋯" row before
//	                                   // Tail, footer "1,234 rows × 12 columns"; no trailing newline
//
//	// image*.go — figures (PNG bytes the harvest checked; limits in kernel.CheckPNG)
//	type Protocol string // ProtocolAuto, ProtocolKitty, ProtocolITerm, ProtocolSixel, ProtocolBlocks, ProtocolOff
//	func ParseProtocol(s string) (Protocol, error)                          // the `images =` setting
//	func DetectProtocol(getenv func(string) string) Protocol    // env only; tmux/screen → blocks
//	type ColorDepth int // ColorNone, Color256, ColorTrue
//	func DetectColorDepth(getenv func(string) string) ColorDepth // NO_COLOR, COLORTERM, TERM, TERM_PROGRAM
//	const KittyQuery                                             // the chat asks; a reply "OK" upgrades to kitty
//	func DecodePNG(data []byte) (image.Image, error)             // kernel.CheckPNG, then decode
//	func ImageCells(w, h, cols, rows int) (c, r int)             // cells a figure will occupy (reserve rows)
//	func KittyUnicode(data []byte, id uint32, cols, rows int) KittyImage // for Bubble Tea: send .Transmit
//	                                   // once with tea.Raw, print .Lines (placeholder text) in the View
//	func KittyDelete(id uint32) string                           // free an image sent with KittyUnicode
//	func HalfBlocks(img image.Image, cols, rows int, depth ColorDepth) string // ▀ lines, no trailing \n
//	func Hyperlink(path, text string) string                     // OSC 8 file:// link; both sanitized
//	func FileURL(path string) string                             // file:// + percent-encoding
//	// Not wired into the chat yet (the terminal-rendering work): drawn at the cursor, outside
//	// Bubble Tea's cell model.
//	type ImageOptions struct{ Protocol; Cols, Rows int; Depth ColorDepth; Name string; Tmux bool }
//	func Image(data []byte, opt ImageOptions) (string, error)    // checks, then draws; off/auto → ""
//	func Kitty(data []byte, cols, rows int) string               // a=T,f=100,q=2, base64 chunks ≤ 4096
//	func ITerm(data []byte, name string, cols, rows int) string  // OSC 1337 File=inline=1
//	func Sixel(img image.Image, cols, rows int) string           // ≤ 256 colours; 10×20 px cells assumed
//
//	// result.go — one cell's outcome, the same words in the chat and the headless progress
//	func CellSummary(r *kernel.Result) string // "done in 1.2s", "failed: KeyError in 300ms", "timed out after 2m00s"
//	func FormatDuration(d time.Duration) string // 450ms, 2.0s, 1m05s
//
// Byte sizes are written with kernel.FormatSize (KiB, MiB, GiB), which the
// model's view uses too.
package render
