package builtin

import (
	"context"
	"regexp"
	"strings"
)

// The demo's customer-service tools (`unstuck demo handoff`): an order
// look-up and a refund. The orders are MADE UP and say so in every
// answer; every order was delivered damaged, so the demo and its tests
// always tell the same story.

func init() {
	Register("lookup_order", lookupOrder)
	Register("issue_refund", issueRefund)
}

// ordersDataNote is in every answer: the orders are not real.
const ordersDataNote = "made-up demo data (unstuck builtin lookup_order), not a real order"

var orderPattern = regexp.MustCompile(`^[0-9]{1,12}$`)

func lookupOrder(_ context.Context, call Call) (any, error) {
	var a struct {
		Order string `json:"order"`
	}
	if err := decode("lookup_order", call.Args, &a); err != nil {
		return nil, err
	}
	order, err := orderID(a.Order)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"order":     order,
		"status":    "delivered",
		"condition": "arrived damaged (reported by the customer)",
		"total":     float64(20 + digest(order)%100),
		"currency":  "USD",
		"data":      ordersDataNote,
	}, nil
}

func issueRefund(_ context.Context, call Call) (any, error) {
	var a struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}
	if err := decode("issue_refund", call.Args, &a); err != nil {
		return nil, err
	}
	order, err := orderID(a.Order)
	if err != nil {
		return nil, err
	}
	if a.Amount <= 0 {
		return nil, Errorf("invalid_args", "'amount' must be more than 0, got %v", a.Amount)
	}
	// The refund id derives from the idempotency key: a retried refund
	// answers the same id, as a real payments API would.
	return map[string]any{
		"refund_id": "RF-" + code(call.IdempotencyKey, 6),
		"order":     order,
		"amount":    a.Amount,
		"currency":  "USD",
		"status":    "issued, awaiting sign-off",
	}, nil
}

// orderID checks an order number.
func orderID(s string) (string, error) {
	order := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if order == "" {
		return "", Errorf("invalid_args", "missing required parameter 'order'")
	}
	if !orderPattern.MatchString(order) {
		return "", Errorf("invalid_args", "invalid 'order' %q: an order number, like 1234", s)
	}
	return order, nil
}
