// Package render turns untrusted text and kernel results into terminal text
// for both front ends: the terminal sanitizer, Markdown through glamour,
// tables through lipgloss, and figures as kitty, iTerm2, Sixel or half-block
// images. It must not import agent, sandbox, session, ui or headless.
package render
