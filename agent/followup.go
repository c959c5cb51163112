package agent

import "context"

// FollowUp continues the last turn with a remark from quarry that the
// model answers (the numbers of its answer no output holds, say): no new
// question begins, so Undo takes the follow-up back with the question.
// The answer it returns replaces the turn's; events go to emit as in Run.
func (a *Agent) FollowUp(ctx context.Context, note string, emit func(Event)) (string, error) {
	a.addNote(note)
	return a.newTurn(ctx, emit).loop()
}
