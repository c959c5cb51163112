package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/quarry-cli/quarry/agent"
)

// Ask runs one agent turn; its events, masked, go to emit and to the
// record, and the error's message is masked too. It waits
// for Start and for a running Attach or Reset (select on ctx). Cancelling ctx
// interrupts the running cell; the files harvested so far stay in the output
// folder.
func (s *Session) Ask(ctx context.Context, prompt string, emit func(agent.Event)) (string, error) {
	if s.ag == nil {
		return "", errors.New("this session has no model: it reruns cells only")
	}
	if err := s.acquire(ctx); err != nil {
		return "", err
	}
	s.setState(StateBusy, nil)
	s.mu.Lock()
	rec, sb := s.rec, s.sb
	s.mu.Unlock()
	rec.question(prompt)
	turn, checkpointed := s.beginTurn(ctx, sb, prompt)
	v := &verifier{s: s, question: prompt, policy: s.verifyPolicy()}
	relay := func(e agent.Event) {
		turn.note(e)
		if e.Kind == agent.EventTurnDone && !v.done(&e) {
			return
		}
		s.publish(e, emit)
	}
	answer, err := s.ag.Run(ctx, prompt, relay)
	if draft := v.held; draft != nil && err == nil {
		// verify = ask: the model is asked once to compute or drop the
		// numbers no output holds; its new answer is checked again.
		s.publish(agent.Event{Kind: agent.EventRevise, Text: reviseText(draft.Numbers), Numbers: draft.Numbers}, emit)
		var again string
		if again, err = s.ag.FollowUp(ctx, followUpNote(draft.Numbers), relay); err == nil {
			answer = again
		} else {
			s.publish(*draft, emit) // the first answer stands
		}
	}
	<-checkpointed // bounded: a checkpoint ignores ctx and has its own limit
	s.mu.Lock()
	s.checkpointing = nil
	s.mu.Unlock()
	s.release(StateReady, nil)
	s.keepAhead() // a report may be asked for now
	return s.mask.Mask(answer), s.maskErr(err)
}

// Reset gives the session a fresh kernel with the same files attached and
// makes the agent forget the conversation.
func (s *Session) Reset(ctx context.Context) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	s.setState(StateRestarting, nil)
	s.mu.Lock()
	sb, rec := s.sb, s.rec
	s.mu.Unlock()
	err := sb.Restart(ctx)
	if err != nil {
		err = fmt.Errorf("kernel restart: %w", err)
		s.release(StateFailed, err)
		return err
	}
	s.ag.Reset()
	s.turns = nil
	rec.add(Entry{Kind: EntryReset})
	s.release(StateReady, nil)
	return nil
}

// SetModel switches the model for the following turns.
func (s *Session) SetModel(name string) error {
	if name == "" {
		return errors.New("model name is empty")
	}
	if s.ag == nil {
		return s.Err()
	}
	if s.ag.Scripted() { // the record must not name a model that never answered
		return fmt.Errorf("this session's model is a script (%s) and cannot be switched: quit and run quarry --resume %s to go on with a real model", s.ag.Model(), s.id)
	}
	s.ag.SetModel(name)
	s.mu.Lock()
	rec := s.rec
	s.mu.Unlock()
	rec.add(Entry{Kind: EntryModel, Model: s.mask.Mask(name)})
	return nil
}

// Model is the model in use.
func (s *Session) Model() string {
	if s.ag == nil {
		return s.opts.Config.Model
	}
	return s.ag.Model()
}

// Endpoint is the model server's address for messages, credentials hidden;
// empty when it is OpenAI's default.
func (s *Session) Endpoint() string {
	if s.opts.Config.BaseURL == "" {
		return ""
	}
	return s.opts.Config.Endpoint()
}
