// Package ui is the Bubble Tea chat analysts live in.
//
// One tea.Model sits at the top (Model: model.go, update.go, turn.go,
// commands.go); everything below it is a plain component with pure state
// and a Render method: transcript (scrolling, only visible blocks drawn),
// block (one message or cell, rendered once per width and cached), input,
// chips, status, tableView and confirmPrompt. No I/O happens in Update:
// session calls, file checks, reading figures and opening viewers run in
// tea.Cmds that return messages. Agent events, the end of a turn, the
// session's own events (start-up progress, the sandbox's state) and confirm
// requests reach Update through the Inbox (inbox.go), a
// channel drained by one Cmd, never through goroutines poking the model.
// Nothing ticks while idle: the streaming answer re-renders at most 15 times
// a second and a running cell's clock once a second, only while they run.
//
// Untrusted text (from the model or the sandbox) becomes terminal text only
// through package render; the escapes ui adds itself are styles, OSC 8 links,
// the terminal queries (termcaps.go), OSC 52 copies (tableexport.go), kitty
// graphics (kitty.go), and Sixel and iTerm2 pictures, which the chat's
// output writer paints around each frame (overlay.go, inline.go). It must
// not import sandbox, session or any Docker package: cli hands it a session
// as a Backend.
package ui
