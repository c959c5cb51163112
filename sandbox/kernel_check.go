package sandbox

import (
	"context"
	"fmt"

	"github.com/quarry-cli/quarry/kernel"
)

// Check asks the kernel which lines of cells its IPython rules refuse
// (pykernel/quarry_kernel/ipython/syntax.py, the one rule set), without running any:
// one request, one answer. A rerun asks it before its first cell.
func (s *Session) Check(ctx context.Context, cells []kernel.CheckCell) ([]kernel.Refusal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	var res kernel.Result
	if err := s.ensureKernel(ctx, &res); err != nil {
		return nil, err
	}
	if cells == nil {
		cells = []kernel.CheckCell{}
	}
	f, err := s.request(ctx, map[string]any{"op": "check", "cells": cells}, "checked")
	if err != nil {
		return nil, fmt.Errorf("checking the cells: %w", err)
	}
	return f.Refusals, nil
}
