// Package ui is the Bubble Tea chat. One tea.Model at the top (Model); the
// components below it are plain structs with Render and HandleMsg methods.
// No I/O happens in Update: work runs in tea.Cmds that return messages.
// It must not import sandbox or any Docker package.
package ui
