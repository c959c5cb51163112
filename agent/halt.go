package agent

// Halt, returned by a Kernel's Exec together with the cell's result, ends
// the turn after that cell with its message (an Error of KindHalted)
// instead of calling the sandbox broken: the cell cannot go on for a reason
// only the user can settle, such as a package that may not be installed
// in this run. The model sees the cell's result; no other cell runs.
type Halt struct{ Message string }

func (h *Halt) Error() string { return h.Message }
