package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/signals"
)

// groupOptions are approve's flags for a group of the inbox.
type groupOptions struct {
	id, agent    string
	only, except []string
}

func (g *groupOptions) flags(f *pflag.FlagSet) {
	f.StringVar(&g.id, "group", "", "the `ID` of a group of unstuck inbox: answer its calls still waiting instead of one call")
	f.StringSliceVar(&g.only, "only", nil, "with --group: only these `REFS` (WORKFLOW_ID/CALL_ID, or a WORKFLOW_ID for all its calls of the group)")
	f.StringSliceVar(&g.except, "except", nil, "with --group: all its calls but these `REFS` (as --only)")
	f.StringVar(&g.agent, "agent", "", "with --group: only the calls of this agent's runs")
}

// decision checks the flags of a group decision before anything is
// dialled; the flags of a single call do not go with --group.
func (o *approveOptions) groupDecision(cmd *cobra.Command) (approvalinbox.Decision, error) {
	for _, name := range []string{"call-id", "args", "tool", "signal", "run-id"} {
		if cmd.Flags().Changed(name) {
			return approvalinbox.Decision{}, usageErrorf("--%s does not go with --group: a group is answered call by call, by update", name)
		}
	}
	// --as signs each call's approval as that person, its by.
	var signed signals.ApproveRequest
	if err := o.signing(&signed); err != nil {
		return approvalinbox.Decision{}, err
	}
	d := approvalinbox.Decision{
		GroupID: strings.ToLower(strings.TrimSpace(o.group.id)), Decision: o.decision,
		By: cmp.Or(signed.By, strings.TrimSpace(o.by)), Reason: o.reason, Only: o.group.only, Except: o.group.except,
	}
	if err := d.Check(); err != nil {
		return d, usageErrorf("%v", err)
	}
	if err := (approvalinbox.Filter{Agent: o.group.agent}).Check(); err != nil {
		return d, usageErrorf("--%v", err)
	}
	return d, nil
}

// approveGroup answers the calls of a group still waiting, each through
// approveCall, and reports what was approved, skipped and failed; it fails
// (exit 1) when any call failed.
func (c *cli) approveGroup(ctx context.Context, cmd *cobra.Command, o approveOptions) error {
	d, err := o.groupDecision(cmd)
	if err != nil {
		return err
	}
	signer, err := o.signer()
	if err != nil {
		return err
	}
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	send := func(ctx context.Context, call approvalinbox.Call, req signals.ApproveRequest) error {
		_, err := c.approveCall(ctx, tc, call.WorkflowID, "", call.Known(), req, signer)
		return err
	}
	start := time.Now()
	out, err := approvalinbox.Answer(ctx, tc, c.namespace, approvalinbox.Filter{Agent: o.group.agent}, d, send,
		progressTo(cmd.ErrOrStderr(), d.Decision))
	var unknown *approvalinbox.UnknownGroupError
	if errors.As(err, &unknown) {
		return &exitError{code: exitUsage, err: err}
	}
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "group %s: %d %s, %d skipped, %d failed in %.1f s\n", d.GroupID, len(out.Answered), pastTense(d.Decision),
		len(out.Skipped), len(out.Failed), time.Since(start).Seconds())
	for _, u := range out.Unread {
		fmt.Fprintf(w, "not read (may hold calls of the group; run it again): %s: %s\n", termtext.Visible(u.WorkflowID), termtext.Visible(u.Err.Error()))
	}
	for _, s := range out.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", termtext.Visible(s.Ref), s.Why)
	}
	for _, f := range out.Failed {
		fmt.Fprintf(w, "failed %s: %s\n", termtext.Visible(f.Ref), termtext.Visible(f.Err.Error()))
	}
	if !out.Complete() {
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d calls failed and %d runs could not be read",
			len(out.Failed), len(out.Failed)+len(out.Answered), len(out.Unread))}
	}
	return nil
}

func pastTense(decision string) string {
	if decision == signals.DecisionReject {
		return "rejected"
	}
	return "approved"
}

// progressEvery is the least time between two progress lines.
const progressEvery = time.Second

// progressTo prints "approved 250 of 1000" at most once a second, so a
// large group shows it moves and a small one prints nothing.
func progressTo(w io.Writer, decision string) func(done, total int) {
	var mu sync.Mutex
	last := time.Now()
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < progressEvery {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "%s %d of %d\n", pastTense(decision), done, total)
	}
}
