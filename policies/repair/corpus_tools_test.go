package repair

import (
	"fmt"
	"math/rand/v2"
)

// The five tools of the corpus.

var flightTool = corpusTool{
	name: "book_flight",
	schema: func() map[string]any {
		return mustJSON(`{"type": "object", "properties": {
			"origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
			"destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
			"departure_date": {"type": "string", "format": "date"},
			"return_date": {"type": "string", "format": "date"},
			"passengers": {"type": "integer", "minimum": 1, "maximum": 9},
			"class": {"type": "string", "enum": ["economy", "premium_economy", "business", "first"], "default": "economy"}},
			"required": ["origin", "destination", "departure_date", "passengers", "class"],
			"additionalProperties": false}`)
	},
	args: func(r *rand.Rand) map[string]any {
		airports := []string{"JFK", "LAX", "LHR", "CDG", "NRT", "SFO", "ORD", "DXB", "SIN", "FRA"}
		o := r.IntN(len(airports))
		d := (o + 1 + r.IntN(len(airports)-1)) % len(airports)
		y, m, day := randomDate(r)
		a := map[string]any{
			"origin": airports[o], "destination": airports[d], "departure_date": isoDate(y, m, day),
			"passengers": intNum(1 + r.IntN(9)),
			"class":      []string{"economy", "premium_economy", "business", "first"}[r.IntN(4)],
		}
		if r.IntN(2) == 0 {
			a["return_date"] = isoDate(y, m, min(28, day+1+r.IntN(7)))
		}
		return a
	},
	mechanical: []mutation{
		{"as_string", "passengers", asString},
		{"date_layout", "departure_date", dateLayout},
		{"date_layout", "return_date", dateLayout},
		{"date_time", "departure_date", dateAsDateTime},
		{"enum_spelling", "class", enumSpelling("class")},
		{"out_of_range", "passengers", outOfRange(num("1"), num("9"), []string{"0", "-1"}, []string{"10", "12", "40"})},
		{"dropped", "class", dropped("economy")},
		{"extra", "-", extra},
		{"misspelt", "departure_date", misspelt},
		{"misspelt", "passengers", misspelt},
	},
	judgement: []mutation{
		{"missing", "passengers", missing},
		{"missing", "departure_date", missing},
		{"pattern", "origin", setTo("London", "New York", "lhr1")},
		{"ambiguous_date", "departure_date", ambiguousDate},
		{"relative_date", "departure_date", relativeDates},
		{"fraction", "passengers", setTo(num("2.5"), num("1.5"))},
		{"unrelated_enum", "class", setTo("helicopter", "cheapest", "window")},
	},
}

var eventTool = corpusTool{
	name: "create_event",
	schema: func() map[string]any {
		return mustJSON(`{"type": "object", "properties": {
			"title": {"type": "string", "minLength": 1, "maxLength": 40},
			"start": {"type": "string", "format": "date-time"},
			"duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480},
			"all_day": {"type": "boolean"},
			"attendees": {"type": "array", "items": {"type": "string"}},
			"reminder": {"type": "string", "enum": ["none", "email", "popup", "sms"], "default": "popup"},
			"visibility": {"type": "string", "enum": ["public", "private", "confidential"]}},
			"required": ["title", "start", "duration_minutes", "reminder"],
			"additionalProperties": false}`)
	},
	args: func(r *rand.Rand) map[string]any {
		y, m, d := randomDate(r)
		a := map[string]any{
			"title":            []string{"Team sync", "Design review", "1:1 with Sam", "Quarterly planning", "Dentist"}[r.IntN(5)],
			"start":            fmt.Sprintf("%sT%02d:%02d:00Z", isoDate(y, m, d), 8+r.IntN(10), 15*r.IntN(4)),
			"duration_minutes": intNum([]int{15, 30, 45, 60, 90, 120}[r.IntN(6)]),
			"all_day":          r.IntN(4) == 0,
			"reminder":         []string{"none", "email", "popup", "sms"}[r.IntN(4)],
			"visibility":       []string{"public", "private", "confidential"}[r.IntN(3)],
		}
		people := []string{"sam@example.com", "ana@example.com", "li@example.com"}
		n := 1 + r.IntN(3)
		att := make([]any, n)
		for i := range n {
			att[i] = people[i]
		}
		a["attendees"] = att
		return a
	},
	mechanical: []mutation{
		{"as_string", "duration_minutes", asString},
		{"as_string", "all_day", asString},
		{"unwrapped", "attendees", unwrapped},
		{"date_time_layout", "start", dateTimeLayout},
		{"enum_spelling", "visibility", enumSpelling("mode")},
		{"enum_spelling", "reminder", enumSpelling("type")},
		{"out_of_range", "duration_minutes", outOfRange(num("5"), num("480"), []string{"0", "1"}, []string{"600", "1440"})},
		{"too_long", "title", tooLong(40)},
		{"dropped", "reminder", dropped("popup")},
		{"extra", "-", extra},
		{"misspelt", "duration_minutes", misspelt},
	},
	judgement: []mutation{
		{"missing", "start", missing},
		{"missing", "title", missing},
		{"date_only", "start", setTo("2025-03-14", "March 14, 2025")},
		{"relative_date", "start", relativeDates},
		{"fraction", "duration_minutes", setTo(num("22.5"))},
		{"unrelated_enum", "visibility", setTo("everyone", "team only")},
	},
}

var thermostatTool = corpusTool{
	name: "set_thermostat",
	schema: func() map[string]any {
		return mustJSON(`{"type": "object", "properties": {
			"room": {"type": "string", "enum": ["living_room", "bedroom", "kitchen", "office", "guest_room"]},
			"temperature": {"type": "number", "minimum": 5, "maximum": 35},
			"mode": {"type": "string", "enum": ["heat", "cool", "auto", "off", "eco"], "default": "auto"},
			"fan": {"type": "boolean"}},
			"required": ["room", "temperature", "mode"],
			"additionalProperties": false}`)
	},
	args: func(r *rand.Rand) map[string]any {
		t := 16 + r.IntN(11)
		temp := intNum(t)
		if r.IntN(2) == 0 {
			temp = num(fmt.Sprintf("%d.5", t))
		}
		return map[string]any{
			"room":        []string{"living_room", "bedroom", "kitchen", "office", "guest_room"}[r.IntN(5)],
			"temperature": temp,
			"mode":        []string{"heat", "cool", "auto", "off", "eco"}[r.IntN(5)],
			"fan":         r.IntN(2) == 0,
		}
	},
	mechanical: []mutation{
		{"as_string", "temperature", asString},
		{"as_string", "fan", asString},
		{"enum_spelling", "room", enumSpelling("room")},
		{"enum_spelling", "mode", enumSpelling("mode")},
		{"out_of_range", "temperature", outOfRange(num("5"), num("35"), []string{"-100", "0", "4.5"}, []string{"40", "72", "100"})},
		{"dropped", "mode", dropped("auto")},
		{"extra", "-", extra},
		{"misspelt", "temperature", misspelt},
	},
	judgement: []mutation{
		{"missing", "room", missing},
		{"missing", "temperature", missing},
		{"unrelated_enum", "room", setTo("garage", "attic")},
		{"words_for_number", "temperature", setTo("warm", "seventy two")},
	},
}

var searchTool = corpusTool{
	name: "search_products",
	schema: func() map[string]any {
		return mustJSON(`{"type": "object", "properties": {
			"query": {"type": "string", "minLength": 1, "maxLength": 60},
			"limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
			"max_price": {"type": "number", "minimum": 0, "maximum": 100000},
			"sort": {"type": "string", "enum": ["relevance", "price_low_to_high", "price_high_to_low", "newest", "rating"]},
			"in_stock": {"type": "boolean"},
			"categories": {"type": "array", "items": {"type": "string", "enum": ["electronics", "books", "clothing", "home", "toys", "garden"]}}},
			"required": ["query", "limit"],
			"additionalProperties": false}`)
	},
	args: func(r *rand.Rand) map[string]any {
		return map[string]any{
			"query":      []string{"usb-c charger", "running shoes", "go programming", "desk lamp", "lego"}[r.IntN(5)],
			"limit":      intNum([]int{5, 10, 20, 50}[r.IntN(4)]),
			"max_price":  intNum([]int{25, 50, 100, 250}[r.IntN(4)]),
			"sort":       []string{"relevance", "price_low_to_high", "price_high_to_low", "newest", "rating"}[r.IntN(5)],
			"in_stock":   r.IntN(2) == 0,
			"categories": []any{[]string{"electronics", "books", "clothing", "home", "toys", "garden"}[r.IntN(6)]},
		}
	},
	mechanical: []mutation{
		{"as_string", "limit", asString},
		{"as_string", "max_price", asString},
		{"as_string", "in_stock", asString},
		{"unwrapped", "categories", unwrapped},
		{"enum_spelling", "sort", enumSpelling("order")},
		{"out_of_range", "limit", outOfRange(num("1"), num("50"), []string{"0", "-5"}, []string{"100", "1000"})},
		{"out_of_range", "max_price", outOfRange(num("0"), num("100000"), []string{"-1"}, []string{"250000"})},
		{"too_long", "query", tooLong(60)},
		{"dropped", "limit", dropped(num("10"))},
		{"extra", "-", extra},
		{"misspelt", "max_price", misspelt},
	},
	judgement: []mutation{
		{"missing", "query", missing},
		{"unrelated_enum", "sort", setTo("best", "cheapest first")},
		{"fraction", "limit", setTo(num("7.5"))},
	},
}

var transferTool = corpusTool{
	name: "transfer_money",
	schema: func() map[string]any {
		return mustJSON(`{"type": "object", "properties": {
			"amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 10000},
			"currency": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY", "CHF"]},
			"account": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$"},
			"execute_on": {"type": "string", "format": "date"},
			"reference": {"type": "string", "maxLength": 35},
			"priority": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 4, "default": 2}},
			"required": ["amount", "currency", "account", "priority"],
			"additionalProperties": false}`)
	},
	args: func(r *rand.Rand) map[string]any {
		y, m, d := randomDate(r)
		return map[string]any{
			"amount":     num(fmt.Sprintf("%d.%02d", 1+r.IntN(5000), 1+r.IntN(99))),
			"currency":   []string{"USD", "EUR", "GBP", "JPY", "CHF"}[r.IntN(5)],
			"account":    []string{"DE89370400440532013000", "GB29NWBK60161331926819", "FR1420041010050500013M02606"}[r.IntN(3)],
			"execute_on": isoDate(y, m, d),
			"reference":  fmt.Sprintf("%d", 100000+r.IntN(900000)),
			"priority":   intNum(1 + r.IntN(3)),
		}
	},
	mechanical: []mutation{
		{"as_string", "amount", asString},
		{"as_string", "priority", asString},
		{"as_number", "reference", asNumber},
		{"date_layout", "execute_on", dateLayout},
		{"date_time", "execute_on", dateAsDateTime},
		{"enum_spelling", "currency", func(b *builder, f string) bool { b.args[f] = lower(b.args[f]); return true }},
		{"out_of_range", "priority", outOfRange(num("1"), num("3"), []string{"0", "-1"}, []string{"4", "10"})},
		{"out_of_range", "amount", outOfRange("", num("10000"), nil, []string{"25000", "1e6"})},
		{"dropped", "priority", dropped(num("2"))},
		{"extra", "-", extra},
		{"misspelt", "execute_on", misspelt},
	},
	judgement: []mutation{
		{"missing", "amount", missing},
		{"missing", "account", missing},
		{"pattern", "account", setTo("my savings", "1234-5678")},
		{"ambiguous_date", "execute_on", ambiguousDate},
		{"non_positive", "amount", setTo(num("0"), num("-20"))},
	},
}

func lower(v any) any {
	if s, ok := v.(string); ok {
		b := []byte(s)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	return v
}
