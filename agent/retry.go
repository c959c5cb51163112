package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// complete gets one model response, retrying what is worth retrying with
// exponential backoff and jitter, within MaxRetries and MaxRetryTime. Each
// wait is announced as EventRetry: text streamed by the failed attempt is
// void, the response is requested again.
func (a *Agent) complete(ctx context.Context, req request, emit func(Event)) (*response, error) {
	start := time.Now()
	retries, budget := a.retryLimits()
	for attempt := 1; ; attempt++ {
		resp, err := a.streamOnce(ctx, req, emit)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		f := a.classify(err)
		if !f.retryable {
			return nil, err // classified again by the caller, which may act on it
		}
		wait := a.backoff(attempt)
		if ra, ok := retryAfter(err); ok {
			wait = ra
		}
		left := budget - time.Since(start)
		if attempt > retries || wait > left {
			f.err.Message = fmt.Sprintf("%s (gave up after %s in %s)", f.err.Message, plural(attempt, "attempt"), time.Since(start).Round(100*time.Millisecond))
			return nil, f.err
		}
		emit(Event{Kind: EventRetry, Text: f.why, Wait: wait, Attempt: attempt})
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

func (a *Agent) retryLimits() (retries int, total time.Duration) {
	retries, total = a.cfg.MaxRetries, a.cfg.MaxRetryTime
	switch {
	case retries == 0:
		retries = 4 // 5 attempts
	case retries < 0:
		retries = 0
	}
	if total <= 0 {
		total = 2 * time.Minute
	}
	return retries, total
}

// backoff is base·2^(attempt-1), capped at 30 s, with the upper half
// jittered so that clients hit by the same outage spread out.
func (a *Agent) backoff(attempt int) time.Duration {
	base := a.cfg.RetryBaseDelay
	if base <= 0 {
		base = time.Second
	}
	d := base << min(attempt-1, 10)
	d = min(d, 30*time.Second)
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads retry-after-ms (OpenAI, Azure) or Retry-After (seconds
// or an HTTP date) from the failed response.
func retryAfter(err error) (time.Duration, bool) {
	var ae *attemptError
	if !errors.As(err, &ae) || ae.header == nil {
		return 0, false
	}
	h := http.Header(ae.header)
	if ms, e := strconv.ParseFloat(strings.TrimSpace(h.Get("retry-after-ms")), 64); e == nil && ms >= 0 {
		return seconds(ms / 1000), true
	}
	return parseRetryAfter(h.Get("Retry-After"), time.Now())
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return seconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// seconds converts a server's number of seconds, capped at a day: a huge
// value would overflow time.Duration into a negative wait.
func seconds(s float64) time.Duration {
	return time.Duration(min(s, 24*3600) * float64(time.Second))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
