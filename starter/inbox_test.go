package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/approvalinbox"
)

func TestInboxPrintsGroupsTheOldestWaitFirst(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	groups := approvalinbox.GroupCalls([]approvalinbox.Call{
		{WorkflowID: "pay-1", CallID: "n3", Agent: "payer", Tool: "pay", Args: json.RawMessage(`{"amount": 5, "to": "x"}`), Since: now.Add(-90 * time.Second)},
		{WorkflowID: "pay-2", CallID: "n4", Agent: "payer", Tool: "pay", Args: json.RawMessage(`{"amount": 9, "to": "y"}`), Since: now.Add(-2 * time.Hour)},
		{WorkflowID: "trip-1", CallID: "n2", Agent: "travel", Tool: "book", Args: json.RawMessage(`{"seat": "1A"}`), Since: now.Add(-time.Minute)},
	})
	in := approvalinbox.Inbox{Groups: groups, Unread: []approvalinbox.Unread{{WorkflowID: "pay-3", Err: errors.New("query timed out")}}}
	var out bytes.Buffer
	renderInbox(&out, in, now, true)
	pay := approvalinbox.GroupID("pay", "{amount: number, to: string}")
	book := approvalinbox.GroupID("book", "{seat: string}")
	require.Equal(t, `GROUP        TOOL    CALLS  OLDEST WAIT  SHAPE
`+pay+`   pay     2      2h0m0s       {amount: number, to: string}
  pay-2/n4   payer          2h0m0s       {"amount": 9, "to": "y"}
  pay-1/n3   payer          1m30s        {"amount": 5, "to": "x"}
`+book+`   book    1      1m0s         {seat: string}
  trip-1/n2  travel         1m0s         {"seat": "1A"}

3 calls in 2 groups; the oldest has waited 2h0m0s (pay-2/n4)
answer a group: unstuck approve --group ID --decision approve|reject --by NAME
not read: pay-3: query timed out
`, out.String())

	var js bytes.Buffer
	require.NoError(t, printJSON(&js, inboxJSON(in, now)))
	var back inboxOut
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, 3, back.Calls)
	require.Equal(t, pay, back.Groups[0].ID)
	require.Equal(t, 2, back.Groups[0].Count)
	require.Equal(t, 7200.0, back.Groups[0].OldestWaitSeconds)
	require.Equal(t, "pay-2/n4", back.Groups[0].Calls[0].Ref)
	require.JSONEq(t, `{"amount": 9, "to": "y"}`, string(back.Groups[0].Calls[0].Args))
	require.Equal(t, []inboxUnreadOut{{WorkflowID: "pay-3", Error: "query timed out"}}, back.Unread)
}

func TestNothingWaiting(t *testing.T) {
	var out bytes.Buffer
	renderInbox(&out, approvalinbox.Inbox{}, time.Now(), false)
	require.Equal(t, "no call waits for approval\n", out.String())
}
