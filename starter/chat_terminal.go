package main

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// chatTerminal is the terminal a chat is typed in, when what the user
// types and what the chat writes are both one: x/term's Terminal edits
// the line being typed at the bottom (the prompt "you> ") and writes the
// conversation above it, redrawing the line as it was, so a reply being
// written and a line being typed never share a line.
type chatTerminal struct {
	t       *term.Terminal
	width   int
	restore func()
}

// chatPrompt is the prompt of the line being typed.
const chatPrompt = "you> "

// openChatTerminal makes the terminal raw for line editing, or says
// (ok false) that in and out are not a terminal: the chat then reads
// plain lines, as from a pipe.
func openChatTerminal(in io.Reader, out io.Writer) (ct *chatTerminal, ok bool) {
	inFile, isFile := in.(*os.File)
	outFile, isOutFile := out.(*os.File)
	if !isFile || !isOutFile || !term.IsTerminal(int(inFile.Fd())) || !term.IsTerminal(int(outFile.Fd())) {
		return nil, false
	}
	state, err := term.MakeRaw(int(inFile.Fd()))
	if err != nil {
		return nil, false
	}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{ctrlCInterrupts{inFile}, outFile}, chatPrompt)
	width, height, err := term.GetSize(int(outFile.Fd()))
	if err != nil || width <= 0 {
		width, height = 80, 24
	}
	_ = t.SetSize(width, height)
	return &chatTerminal{t: t, width: width - 1, restore: func() { _ = term.Restore(int(inFile.Fd()), state) }}, true
}

// lines gives the lines typed, closed at Ctrl-D on an empty line.
func (ct *chatTerminal) lines() <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		for {
			line, err := ct.t.ReadLine()
			if err != nil && err != term.ErrPasteIndicator { // a pasted line is a line
				return
			}
			lines <- line
		}
	}()
	return lines
}

// close clears the prompt and gives the terminal back as it was.
func (ct *chatTerminal) close() {
	ct.t.SetPrompt("")
	_, _ = ct.t.Write(nil)
	ct.restore()
}

// ctrlCInterrupts passes on what is typed but Ctrl-C, which it turns into
// the interrupt a terminal not in raw mode sends: Ctrl-C stops the
// command (and `unstuck demo chat`), as in any other.
type ctrlCInterrupts struct{ r io.Reader }

func (c ctrlCInterrupts) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if i := bytes.IndexByte(p[:n], 3); i >= 0 {
		if self, findErr := os.FindProcess(os.Getpid()); findErr == nil {
			_ = self.Signal(os.Interrupt)
		}
		n = i // what came after it is not for the chat
	}
	return n, err
}
