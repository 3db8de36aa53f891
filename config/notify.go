package config

import "slices"

// The events a webhook of notify: may listen for, in the order a wait
// meets them.
const (
	NotifyWaiting     = "waiting"      // a run begins to wait for a person
	NotifyHalfTimeout = "half_timeout" // the wait passes half its timeout
	NotifyTimedOut    = "timed_out"    // the wait times out
)

// NotifyEvents are every event a webhook may listen for: the `on` of a
// webhook that writes none.
var NotifyEvents = []string{NotifyWaiting, NotifyHalfTimeout, NotifyTimedOut}

// Webhook is a webhook called when a run needs a person (notify:). Its
// URL and headers are the worker's: a run keeps only its name and
// events, and the notify activity looks the rest up when it calls, its
// headers' ${VAR} expanded then, as a tool's are.
type Webhook struct {
	Name    string            `yaml:"name" json:"name"`
	URL     string            `yaml:"url" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// On are the events it is called for (none written: all of them).
	On []string `yaml:"on" json:"on,omitempty"`
}

// Listens says whether the webhook is called for event.
func (w Webhook) Listens(event string) bool {
	return len(w.On) == 0 || slices.Contains(w.On, event)
}

// Webhook finds a webhook of the file by name: the notify activity looks
// its address up here at call time.
func (f *File) Webhook(name string) (Webhook, bool) {
	for _, w := range f.Notify {
		if w.Name == name {
			return w, true
		}
	}
	return Webhook{}, false
}

// webhookNames are the file's webhooks as a run keeps them: names and
// events, no address and no header (nil: none).
func (f *File) webhookNames() []Webhook {
	var out []Webhook
	for _, w := range f.Notify {
		out = append(out, Webhook{Name: w.Name, On: slices.Clone(w.On)})
	}
	return out
}
