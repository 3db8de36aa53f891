package builtin

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The demo's hotel search (`unstuck demo chat`): a few hotels in a city.
// The hotels are MADE UP and say so in every answer; they are derived
// from the city's name, so the same city always gives the same hotels.

func init() {
	Register("find_hotels", findHotels)
}

// hotelsDataNote is in every answer: the hotels are not real.
const hotelsDataNote = "made-up demo data (unstuck builtin find_hotels), not a real hotel"

var cityPattern = regexp.MustCompile(`^\p{L}[\p{L} .'-]{0,59}$`)

// hotelNames are the made-up names a city's hotels are drawn from, each
// with the city's name where %s stands.
var hotelNames = []string{
	"Casa %s", "Hotel %s Central", "The %s Riverside", "%s Garden Inn",
	"Old Town %s Suites", "%s Harbour Lodge", "Grand %s Palace", "%s Station Rooms",
}

var hotelAreas = []string{"the old town", "the river", "the main station", "the city centre", "the harbour", "the park"}

type hotel struct {
	Name  string `json:"name"`
	Area  string `json:"area"`
	Stars int    `json:"stars"`
	Price int    `json:"price_per_night_usd"`
}

func findHotels(_ context.Context, call Call) (any, error) {
	var a struct {
		City string `json:"city"`
	}
	if err := decode("find_hotels", call.Args, &a); err != nil {
		return nil, err
	}
	city, err := cityName(a.City)
	if err != nil {
		return nil, err
	}
	n := digest(strings.ToLower(city))
	hotels := make([]hotel, 3)
	for i := range hotels {
		k := n + i*3
		hotels[i] = hotel{
			Name:  strings.ReplaceAll(hotelNames[k%len(hotelNames)], "%s", city),
			Area:  "near " + hotelAreas[(n/7+i)%len(hotelAreas)],
			Stars: 3 + (n/11+i)%3,
			Price: 80 + (n/13+i*37)%150,
		}
	}
	return map[string]any{"city": city, "hotels": hotels, "data": hotelsDataNote}, nil
}

// cityName checks a city's name and capitalises each word: "new york"
// is "New York".
func cityName(s string) (string, error) {
	city := strings.Join(strings.Fields(s), " ")
	if city == "" {
		return "", Errorf("invalid_args", "missing required parameter 'city'")
	}
	if !cityPattern.MatchString(city) {
		return "", Errorf("invalid_args", "invalid 'city' %q: a city's name, like Lisbon", s)
	}
	words := strings.Fields(city)
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[size:]
	}
	return strings.Join(words, " "), nil
}
