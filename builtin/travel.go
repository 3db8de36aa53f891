package builtin

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"
)

// The demo's travel tools: a flight search and a booking, deterministic so
// the demo and its tests always tell the same story.

func init() {
	Register("search_flights", searchFlights)
	Register("book_flight", bookFlight)
}

type flight struct {
	ID     string `json:"id"`
	From   string `json:"from"`
	To     string `json:"to"`
	Date   string `json:"date"`
	Depart string `json:"depart"`
	Price  int    `json:"price_usd"`
}

func searchFlights(_ context.Context, call Call) (any, error) {
	var a struct {
		From string `json:"from"`
		To   string `json:"to"`
		Date string `json:"date"`
	}
	if err := decode("search_flights", call.Args, &a); err != nil {
		return nil, err
	}
	if _, err := time.Parse("2006-01-02", a.Date); err != nil {
		return nil, Errorf("invalid_args", "invalid date format for 'date': %q is not YYYY-MM-DD", a.Date)
	}
	if a.From == "" || a.To == "" {
		return nil, Errorf("invalid_args", "missing required parameter 'from' or 'to'")
	}
	from, to := strings.ToUpper(a.From), strings.ToUpper(a.To)
	return map[string]any{"flights": []flight{
		{ID: "UA" + code(from+to+a.Date, 3), From: from, To: to, Date: a.Date, Depart: "08:15", Price: 289},
		{ID: "DL" + code(to+from+a.Date, 3), From: from, To: to, Date: a.Date, Depart: "13:40", Price: 315},
	}}, nil
}

func bookFlight(_ context.Context, call Call) (any, error) {
	var a struct {
		FlightID   string `json:"flight_id"`
		Passengers int    `json:"passengers"`
	}
	if err := decode("book_flight", call.Args, &a); err != nil {
		return nil, err
	}
	if a.FlightID == "" {
		return nil, Errorf("invalid_args", "missing required parameter 'flight_id'")
	}
	if a.Passengers < 1 || a.Passengers > 9 {
		return nil, Errorf("invalid_args", "value for 'passengers' must be >= 1 and <= 9")
	}
	// The confirmation derives from the idempotency key: a retried
	// booking answers the same confirmation, as a real booking API would.
	return map[string]any{
		"confirmation": "CONF-" + strings.ToUpper(code(call.IdempotencyKey, 6)),
		"flight_id":    a.FlightID,
		"passengers":   a.Passengers,
		"status":       "booked",
	}, nil
}

// code is a short deterministic digest used for made-up ids.
func code(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	const digits = "0123456789"
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(digits[int(sum[i])%10])
	}
	return b.String()
}
