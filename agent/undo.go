package agent

// turnMark is where a turn began: its question and the cells run before it.
type turnMark struct {
	prompt string
	cells  int
}

func (a *Agent) beginTurn(prompt string) {
	a.turns = append(a.turns, turnMark{prompt: prompt, cells: a.cells})
}

// Undo takes back the last question: it and everything after it (the
// model's answers, cells and their outputs) leave the history, and cell
// numbers continue from where they were before it. Tokens spent stay
// counted. ok is false when there is no question to take back.
func (a *Agent) Undo() (question string, ok bool) {
	if len(a.turns) == 0 {
		return "", false
	}
	last := a.turns[len(a.turns)-1]
	a.turns = a.turns[:len(a.turns)-1]
	a.cells = last.cells
	// The budget may have dropped old turns from the front of the history,
	// never the newest: its last question is this turn's, if any is left.
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].kind == entryPrompt {
			a.history = a.history[:i]
			break
		}
	}
	return last.prompt, true
}
