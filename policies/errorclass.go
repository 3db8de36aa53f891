package policies

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/unstuck-dev/unstuck/config"
)

// Class is what kind of failure a tool error is; it decides what happens
// next (retry, repair, give up).
type Class string

// The error classes of docs/contract.md.
const (
	// Transient failures are retried by Temporal with backoff.
	Transient Class = "transient"
	// InvalidArgs failures are answered by parameter repair.
	InvalidArgs Class = "invalid_args"
	// Persistent failures are not retried.
	Persistent Class = "persistent"
	// Fatal failures are neither retried nor repaired.
	Fatal Class = "fatal"
)

// Classes the engine gives to calls that end without the tool's own
// class: found wrong before running, stopped by a rule or a person, or an
// activity failure that carries no class.
const (
	// Structural: arguments, references or schema wrong before running.
	Structural Class = "structural"
	// Blocked: an exact call the loop ladder blocked.
	Blocked Class = "blocked"
	// CircuitOpen: the tool's breaker is open and no fallback serves.
	CircuitOpen Class = "circuit_open"
	// Refused: a person rejected the call, or no decision came in time.
	Refused Class = "refused"
	// Canceled: the run was cancelled while the call waited or ran.
	Canceled Class = "canceled"
	// Timeout: the activity timed out (Temporal's timeout, not the tool's).
	Timeout Class = "timeout"
	// Unclassified: an activity failure of no known class.
	Unclassified Class = "error"
)

// Retryable reports whether Temporal should retry a failure of this class.
func (c Class) Retryable() bool { return c == Transient }

// NonRetryableClasses are the application error types Temporal must not
// retry; every retry policy of a tool activity lists them.
var NonRetryableClasses = []string{string(InvalidArgs), string(Persistent), string(Fatal)}

// StatusTransport is the status given to failures that never got an HTTP
// answer (timeouts, refused connections).
const StatusTransport = 0

// ClassifyStatus is the default class of an HTTP status (0: no answer).
func ClassifyStatus(status int) Class {
	switch {
	case status == StatusTransport, status == 408, status == 425, status == 429, status >= 500:
		return Transient
	case status == 400, status == 422:
		return InvalidArgs
	case status == 401, status == 403:
		return Fatal
	default:
		return Persistent
	}
}

// Classify applies a tool's error rules (first match wins) and falls back
// to the default class of the status.
func Classify(status int, message string, rules []config.ErrorRule) Class {
	if c, ok := MatchRule(status, message, rules); ok {
		return c
	}
	return ClassifyStatus(status)
}

// MatchRule finds the first of a tool's error rules that matches; a rule
// with a status matches only that status.
func MatchRule(status int, message string, rules []config.ErrorRule) (Class, bool) {
	for _, r := range rules {
		if r.Status != 0 && r.Status != status {
			continue
		}
		if r.Message != "" {
			re, err := compiled(r.Message)
			if err != nil || !re.MatchString(message) {
				continue
			}
		}
		return Class(r.Class), true
	}
	return "", false
}

var regexCache sync.Map // pattern -> *regexp.Regexp

// compiled caches rule regexps: Classify runs on every tool failure and
// config validation has already proved each pattern compiles.
func compiled(pattern string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("error rule %q: %w", pattern, err)
	}
	regexCache.Store(pattern, re)
	return re, nil
}
