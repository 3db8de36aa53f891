package outage

import (
	"encoding/json"
	"time"
)

// Since is when the run began to wait out each tool that is down. Its
// state is its own: the run carries it as JSON ("outages": tool to time),
// and only Begin and End change it.
type Since struct{ at map[string]time.Time }

// Begin answers when the run began to wait out tool: now, unless it
// already waits it out.
func (s *Since) Begin(tool string, now time.Time) time.Time {
	if at, ok := s.at[tool]; ok {
		return at
	}
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	s.at[tool] = now.UTC()
	return s.at[tool]
}

// End: tool answered again, so its outage is over.
func (s *Since) End(tool string) { delete(s.at, tool) }

// IsZero: no outage is waited out (the run's JSON leaves it out).
func (s Since) IsZero() bool { return len(s.at) == 0 }

func (s Since) MarshalJSON() ([]byte, error) { return json.Marshal(s.at) }

func (s *Since) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &s.at) }
