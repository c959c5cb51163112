// Package filekind owns the one table of file kinds quarry knows
// (kinds.go): for each kind its extensions, its content signatures and
// rules, the kernel's profile reader and the read calls that reader
// reports, and for kinds quarry does not read, what the user should do. It
// also tells what a file is, by its name and by its content (Identify):
// attach, piped standard input, notebook inputs, the read call's check, the
// /attach help and the docs all read this table, and the kernel's Python
// gets each file's row from the host with the request to profile it.
//
// It imports nothing of quarry.
package filekind
