// Package ground checks an answer's numbers against the outputs of the
// cells that answered it. Every number in the answer's prose and tables is
// a claim; a claim is grounded when a source value (printed text, a last
// value, a table's exact cell, an attached file's profile facts) equals it
// after the rounding the claim itself shows, with percent scaling, sign
// words and absolute values. Numbers that are labels, identifiers, dates,
// list numbering, code or the user's own are not claims.
//
// It is pure: no I/O, no state, so it is fast to test and to benchmark.
// The session calls it when an answer is final; ui, headless and export only
// show its result. It imports nothing of quarry but kernel, for the result
// types the sources come from.
package ground
