// Package termtext makes text a model, a tool or a person wrote safe to
// print on a terminal: the control characters a terminal would act on
// (escape sequences that set its title, write the clipboard, clear or
// hide text; bidi overrides that reorder what is shown) are written out
// visibly instead. Every place the CLI prints such text goes through it,
// so one filter decides what reaches the terminal.
package termtext
