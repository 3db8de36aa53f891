package main

import (
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// replyHold holds the scripted model's answer to a tool's result until
// the demo lets it go, so that a message the demo sends meanwhile reaches
// the run while it works on that answer, every time, however loaded the
// machine. It changes when the answer comes, never what it is. A hold
// that is not armed holds nothing.
type replyHold struct {
	armed                    bool
	reached                  chan struct{} // closed once a held request came
	release                  chan struct{} // closed by let
	reachedOnce, releaseOnce sync.Once
}

func newReplyHold(armed bool) *replyHold {
	return &replyHold{armed: armed, reached: make(chan struct{}), release: make(chan struct{})}
}

// script is next, held as above.
func (h *replyHold) script(next scriptedmodel.Script) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if h.armed && len(scriptedmodel.LastToolResults(req)) > 0 {
			h.reachedOnce.Do(func() { close(h.reached) })
			<-h.release
		}
		return next(req)
	}
}

// let lets every held answer go, now and from now on.
func (h *replyHold) let() { h.releaseOnce.Do(func() { close(h.release) }) }
