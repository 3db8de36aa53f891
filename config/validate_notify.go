package config

import "slices"

// notify checks the webhooks called when a run needs a person: each
// named once, reached at an http(s) URL, with headers HTTP accepts, for
// events of NotifyEvents.
func (c *checker) notify(hooks []Webhook) {
	names := map[string]int{}
	for i, w := range hooks {
		p := path{"notify", i}
		switch j, dup := names[w.Name]; {
		case w.Name == "":
			c.add(p.key("name"), "missing: every webhook needs a name")
		case dup:
			c.add(p.key("name"), "duplicate webhook name %q (also notify[%d])", w.Name, j)
		default:
			names[w.Name] = i
		}
		if w.URL == "" {
			c.add(p.key("url"), "missing: the URL the webhook is called at")
		} else if why := httpURLProblem(w.URL); why != "" {
			c.add(p.key("url"), "%s", why)
		}
		c.headers(p.key("headers"), w.Headers)
		for k, event := range w.On {
			ep := p.key("on").idx(k)
			c.oneOf(ep, "event", event, NotifyEvents)
			if slices.Contains(w.On[:k], event) {
				c.add(ep, "event %q is listed twice", event)
			}
		}
	}
}
