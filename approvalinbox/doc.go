// Package approvalinbox is the inbox for a fleet (docs/approvals-and-edits.md
// "The inbox"): the calls waiting for a person's approval across runs,
// grouped by tool and shape of arguments, and the answer of a whole group
// (or a chosen part of it), each run settling its own call through the
// ordinary approve message. `unstuck inbox`, `unstuck approve --group` and
// the console's /approvals page all read and answer through it.
package approvalinbox
