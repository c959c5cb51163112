package session

import (
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
)

// verifyPolicy is the verify setting; unset counts as mark.
func (s *Session) verifyPolicy() string {
	if v := s.opts.Config.Verify; v != "" {
		return v
	}
	return config.VerifyMark
}

// numbers checks an answer against what the session's cells showed, the
// current question's first (a value it printed is the one its answer
// quotes), then the earlier questions' (a resumed session's included) and
// the attached files' profiles.
func (s *Session) numbers(answer, question string) []ground.Claim {
	cs := ground.Check(ground.Input{Answer: answer, Question: question, Sources: s.groundSources(), Thousands: s.opts.Config.Thousands})
	if cs == nil {
		cs = []ground.Claim{} // checked, and none: not the same as not checked
	}
	return cs
}

// groundSources are what an answer's numbers are checked against, in the
// order numbers says.
func (s *Session) groundSources() []ground.Source {
	var srcs []ground.Source
	for i := len(s.turns) - 1; i >= 0; i-- {
		srcs = append(srcs, s.turns[i].sources...)
	}
	for _, p := range s.Files() {
		srcs = append(srcs, ground.FromProfile(p))
	}
	return srcs
}

// cellSources are what a cell's result gives an answer to quote: its
// outputs, and its result as the model read it (a table's shape, the
// sizes of the files it saved).
func cellSources(n int, r kernel.Result) []ground.Source {
	return append(ground.FromResult(n, r), ground.Source{Cell: n, Kind: ground.Shown, Text: agent.CellView(r)})
}

// verifier stands between the agent and publish during one question: it
// checks the final answer's numbers and, with verify = ask, holds back a
// first answer that has unverified ones so the model is asked once more.
type verifier struct {
	s        *Session
	question string
	policy   string
	asked    bool
	held     *agent.Event
}

// done fills in a turn_done event's numbers; it reports false when the
// event is held back for a follow-up.
func (v *verifier) done(e *agent.Event) bool {
	if v.policy == config.VerifyOff {
		return true
	}
	e.Numbers = v.s.numbers(v.s.mask.Mask(e.Text), v.question)
	if v.policy == config.VerifyAsk && !v.asked && len(ground.Unverified(e.Numbers)) > 0 {
		v.asked = true
		held := *e
		v.held = &held
		return false
	}
	return true
}

// listed is the unverified numbers as written, for a message.
func listed(cs []ground.Claim, most int) string {
	var parts []string
	for _, c := range ground.Unverified(cs) {
		if len(parts) == most {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, ", ")
}

// reviseText says, for the user, why the model is asked again.
func reviseText(cs []ground.Claim) string {
	n := len(ground.Unverified(cs))
	return fmt.Sprintf("%d %s of the answer %s in no cell's output (%s): the model is asked once to compute them in a cell or drop them",
		n, pick(n, "number", "numbers"), pick(n, "is", "are"), listed(cs, 10))
}

// followUpNote is what the model is told.
func followUpNote(cs []ground.Claim) string {
	return "[quarry] These numbers in your answer are not in the output of any cell: " + listed(cs, 30) +
		". For each one, compute it in a cell and print it, then quote the printed value; or drop it from the answer. Then give your whole answer again."
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
