package repair_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/unstuck-dev/unstuck/policies/repair"
)

func decode(s string) map[string]any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// The seed's call: a date in another layout and an enum value with a
// unit word, mended without a model.
func ExampleRepair() {
	schema := decode(`{"type": "object", "properties": {
		"departure_date": {"type": "string", "format": "date"},
		"passengers": {"type": "integer", "minimum": 1, "maximum": 9},
		"class": {"enum": ["economy", "premium_economy", "business", "first"]}},
		"required": ["departure_date", "passengers"]}`)
	args := decode(`{"departure_date": "Oct 26, 2024", "passengers": "0", "class": "business class"}`)

	r := repair.Repair(schema, args, repair.Options{})
	for _, a := range r.Repairs {
		fmt.Printf("%s %s: %v -> %v\n", a.Strategy, a.Path, a.Before, a.After)
	}
	out, _ := json.Marshal(r.Args)
	fmt.Println(r.Valid, string(out))
	// Output:
	// coerce_type /passengers: 0 -> 0
	// reformat_date /departure_date: Oct 26, 2024 -> 2024-10-26
	// correct_enum /class: business class -> business
	// clamp /passengers: 0 -> 1
	// true {"class":"business","departure_date":"2024-10-26","passengers":1}
}

// A tool's rejection names a problem its schema does not describe.
func ExampleRepairRejection() {
	schema := decode(`{"type": "object", "properties": {"passengers": {"type": "integer"}}}`)
	args := decode(`{"passengers": 0}`)

	r := repair.RepairRejection(schema, args, "400 Bad Request: Value for 'passengers' must be >= 1", repair.Options{})
	fmt.Println(r.Valid, r.Args["passengers"], r.Repairs[0].Reason)
	// Output:
	// true 1 clamped to the bound >= 1
}
