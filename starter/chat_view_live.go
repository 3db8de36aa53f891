package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// In a terminal that keeps the line being typed at the bottom (live: the
// chat's x/term Terminal writes above it), a reply is written a whole line
// at a time: a line the reply ended, or one as wide as the terminal. A
// part of a line would share its line with the prompt and what is typed
// there. The rest waits in held until its line is whole or the reply ends.

// liveText takes a delta of the reply of node (told: what was told of it
// before; again: the model writes it again from its start).
func (v *chatView) liveText(node, delta, told string, again bool) {
	switch {
	case again && v.writing == node && !v.onScreen:
		v.held = "" // none of it was shown: start it again unseen
	case again:
		v.finishReply("")
		fmt.Fprintln(v.w, "(written again)")
		v.startReply(node, "agent> ")
	case v.writing != node:
		v.finishReply("")
		lead := "agent> "
		if told != "" {
			lead = "agent> ..." // the reply goes on after lines that broke it
		}
		v.startReply(node, lead)
	}
	v.held += delta
	v.writeLines()
}

func (v *chatView) startReply(node, lead string) {
	v.writing, v.lead, v.held, v.onScreen = node, lead, "", false
}

// writeLines writes the whole lines of what is held.
func (v *chatView) writeLines() {
	for {
		line, rest, ok := cutLine(v.held, v.width-utf8.RuneCountInString(v.lead))
		if !ok {
			return
		}
		fmt.Fprintf(v.w, "%s%s\n", v.lead, termtext.Visible(line))
		v.held, v.lead, v.onScreen = rest, "", true
	}
}

// finishReply writes the rest of the reply being written, then mark (" [cut]"
// or ""), and frees the line.
func (v *chatView) finishReply(mark string) {
	if v.writing == "" {
		return
	}
	v.writeLines()
	if mark != "" && v.held == "" && v.lead == "" {
		v.lead = "agent> ..."
	}
	if v.held != "" || mark != "" {
		fmt.Fprintf(v.w, "%s%s%s\n", v.lead, termtext.Visible(v.held), mark)
	}
	v.writing, v.lead, v.held, v.onScreen = "", "", "", false
}

// liveBreak: a line that is not the reply is about to be written: the
// reply, if some of it is on the screen, goes on after it as
// "agent> ...".
func (v *chatView) liveBreak() {
	if v.writing != "" && v.onScreen && v.lead == "" {
		v.lead = "agent> ..."
	}
}

// liveReply ends the reply of the request node id as it settled with
// content, or shows it whole.
func (v *chatView) liveReply(id, told, content string) {
	switch {
	case told != "" && strings.HasPrefix(content, told) && v.writing == id:
		v.held += content[len(told):]
	case told != "" && strings.HasPrefix(content, told):
		v.finishReply("")
		v.startReply(id, "agent> ...")
		v.held = content[len(told):]
	case content != "":
		v.finishReply("")
		v.startReply(id, "agent> ")
		v.held = content
	}
	if v.writing == id {
		v.finishReply("")
	}
}

// cutLine cuts the first line off s: up to its first new line, or, when
// that is wider than width, up to its last space within width (all of
// width when it has none). ok is false when s holds no whole line yet.
func cutLine(s string, width int) (line, rest string, ok bool) {
	width = max(width, 8)
	nl := strings.IndexByte(s, '\n')
	end := len(s)
	if nl >= 0 {
		end = nl
	}
	if utf8.RuneCountInString(s[:end]) <= width {
		if nl < 0 {
			return "", s, false
		}
		return s[:nl], s[nl+1:], true
	}
	cut, runes := 0, 0
	for i := range s[:end] {
		if runes == width {
			cut = i
			break
		}
		runes++
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 {
		return s[:sp], s[sp+1:], true
	}
	return s[:cut], s[cut:], true
}
