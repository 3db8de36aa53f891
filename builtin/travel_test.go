package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// call runs the built-in name and answers its result as JSON.
func call(t *testing.T, name string, c Call) (string, error) {
	t.Helper()
	fn, ok := Lookup(name)
	require.True(t, ok, name)
	out, err := fn(context.Background(), c)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return string(b), nil
}

// requireClassed checks a built-in's error is a *Error of class holding
// message.
func requireClassed(t *testing.T, err error, class, message string) {
	t.Helper()
	var be *Error
	require.True(t, errors.As(err, &be), "not a classed error: %v", err)
	require.Equal(t, class, be.Class)
	require.Contains(t, be.Message, message)
	require.Equal(t, be.Message, be.Error())
}

func TestSearchFlightsAnswersTwoFlights(t *testing.T) {
	out, err := call(t, "search_flights", Call{Args: json.RawMessage(`{"from":"nyc","to":"lax","date":"2024-01-15"}`)})
	require.NoError(t, err)
	var got struct {
		Flights []map[string]any `json:"flights"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Flights, 2)
	for i, f := range got.Flights {
		require.Equal(t, "NYC", f["from"], "upper-cased")
		require.Equal(t, "LAX", f["to"])
		require.Equal(t, "2024-01-15", f["date"])
		require.Regexp(t, regexp.MustCompile(`^(UA|DL)\d{3}$`), f["id"], i)
	}
	require.Equal(t, "08:15", got.Flights[0]["depart"])
	require.EqualValues(t, 289, got.Flights[0]["price_usd"])
	require.EqualValues(t, 315, got.Flights[1]["price_usd"])
}

// The same search always answers the same ids (the demo tells one story);
// another route or date other ids.
func TestSearchFlightsIsDeterministic(t *testing.T) {
	search := func(args string) string {
		out, err := call(t, "search_flights", Call{IdempotencyKey: "ignored", Args: json.RawMessage(args)})
		require.NoError(t, err)
		return out
	}
	a := search(`{"from":"NYC","to":"LAX","date":"2024-01-15"}`)
	require.Equal(t, a, search(`{"date":"2024-01-15","to":"lax","from":"nyc"}`))
	require.NotEqual(t, a, search(`{"from":"NYC","to":"LAX","date":"2024-01-16"}`))
	require.NotEqual(t, a, search(`{"from":"LAX","to":"NYC","date":"2024-01-15"}`))
}

func TestSearchFlightsRefusesBadArguments(t *testing.T) {
	cases := []struct {
		name, args, message string
	}{
		{"bad date", `{"from":"NYC","to":"LAX","date":"15/01/2024"}`, `invalid date format for 'date': "15/01/2024" is not YYYY-MM-DD`},
		{"impossible date", `{"from":"NYC","to":"LAX","date":"2024-02-30"}`, "invalid date format for 'date'"},
		{"missing date", `{"from":"NYC","to":"LAX"}`, "invalid date format for 'date'"},
		{"missing from", `{"to":"LAX","date":"2024-01-15"}`, "missing required parameter 'from' or 'to'"},
		{"missing to", `{"from":"NYC","date":"2024-01-15"}`, "missing required parameter 'from' or 'to'"},
		{"wrong type", `{"from":1,"to":"LAX","date":"2024-01-15"}`, "search_flights: arguments are not valid"},
		{"not JSON", `{"from":`, "search_flights: arguments are not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, "search_flights", Call{Args: json.RawMessage(tc.args)})
			requireClassed(t, err, "invalid_args", tc.message)
		})
	}
}

// The confirmation comes from the idempotency key: a retried booking gets
// the same one, another booking another.
func TestBookFlightConfirmationFollowsTheIdempotencyKey(t *testing.T) {
	book := func(key string) map[string]any {
		out, err := call(t, "book_flight", Call{IdempotencyKey: key, Args: json.RawMessage(`{"flight_id":"UA123","passengers":2}`)})
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m
	}
	first := book("key-1")
	require.Regexp(t, regexp.MustCompile(`^CONF-\d{6}$`), first["confirmation"])
	require.Equal(t, "UA123", first["flight_id"])
	require.EqualValues(t, 2, first["passengers"])
	require.Equal(t, "booked", first["status"])
	require.Equal(t, first, book("key-1"))
	require.NotEqual(t, first["confirmation"], book("key-2")["confirmation"])
}

func TestBookFlightPassengerBounds(t *testing.T) {
	for _, n := range []int{1, 9} {
		_, err := call(t, "book_flight", Call{Args: json.RawMessage(`{"flight_id":"UA1","passengers":` + jsonInt(n) + `}`)})
		require.NoError(t, err, n)
	}
	for _, n := range []int{-1, 0, 10, 100} {
		_, err := call(t, "book_flight", Call{Args: json.RawMessage(`{"flight_id":"UA1","passengers":` + jsonInt(n) + `}`)})
		requireClassed(t, err, "invalid_args", "value for 'passengers' must be >= 1 and <= 9")
	}
	_, err := call(t, "book_flight", Call{Args: json.RawMessage(`{"flight_id":"UA1"}`)})
	requireClassed(t, err, "invalid_args", "'passengers'")
	_, err = call(t, "book_flight", Call{Args: json.RawMessage(`{"passengers":1}`)})
	requireClassed(t, err, "invalid_args", "missing required parameter 'flight_id'")
	_, err = call(t, "book_flight", Call{Args: json.RawMessage(`{"flight_id":"UA1","passengers":1.5}`)})
	requireClassed(t, err, "invalid_args", "book_flight: arguments are not valid")
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
