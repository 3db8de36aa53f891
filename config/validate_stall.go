package config

import "fmt"

// stalls checks every stall block the file writes: each deadline above 0
// when written, and not above the timeout of a model request it bounds,
// since that timeout would cut the request first and the stall would
// never be told. A model's block bounds its fallbacks that write none,
// and the file's model's bounds the agents whose model writes none, so a
// block is checked under each timeout it meets, and told once.
func (c *checker) stalls(f *File) {
	told := map[string]bool{}
	c.stallsOfModel(f.Model, modelPlaces{model: path{"model"}, stall: path{"model"}, fallbacks: path{"model"}}, told)
	for i := range f.Agents {
		own := f.Agents[i].Model
		if own == nil {
			continue // the file's model, checked above
		}
		at := path{"agents", i, "model"}
		places := modelPlaces{model: at, stall: path{"model"}, fallbacks: path{"model"}, agent: f.Agents[i].Name}
		switch {
		case own.Timeout > 0:
			places.timeout = at.key("timeout")
		case f.Model.Timeout > 0:
			places.timeout = path{"model", "timeout"}
		}
		if own.Stall != nil {
			places.stall = at
		}
		if own.Fallbacks != nil {
			places.fallbacks = at
		}
		c.stallsOfModel(f.agentModel(&f.Agents[i], func(string) (string, bool) { return "", false }), places, told)
	}
}

// modelPlaces say where the file writes what a model request reads: its
// stall block, its fallbacks and its timeout (nil: the default), and for
// whose model (an agent's, or "" for the file's).
type modelPlaces struct {
	model, stall, fallbacks, timeout path
	agent                            string
}

// stallsOfModel checks the stall of m and of each of its fallbacks.
func (c *checker) stallsOfModel(m Model, at modelPlaces, told map[string]bool) {
	if at.timeout == nil && m.Timeout > 0 {
		at.timeout = at.model.key("timeout")
	}
	c.stall(at.stall.key("stall"), m.Stall, Duration(m.RequestTimeout()), at, told)
	for j, fb := range m.Fallbacks {
		if fb.Stall != nil {
			c.stall(at.fallbacks.key("fallbacks").idx(j).key("stall"), fb.Stall, Duration(m.RequestTimeout()), at, told)
		}
	}
}

// stall checks one written block s at p under the request timeout.
func (c *checker) stall(p path, s *Stall, timeout Duration, at modelPlaces, told map[string]bool) {
	if s == nil {
		return
	}
	for _, d := range []struct {
		key string
		v   Duration
		def Duration
	}{{"first_byte", s.FirstByte, DefaultStallFirstByte}, {"idle", s.Idle, DefaultStallIdle}} {
		kp := p.key(d.key)
		key := kp.String()
		switch {
		case d.v < 0 || (d.v == 0 && written(c.doc, kp)):
			if !told[key] {
				told[key] = true
				c.add(kp, "must be > 0 (leave it out for the default, %s), got %s", d.def.D(), d.v.D())
			}
		case d.v > timeout:
			key += " " + at.timeout.String() + " " + timeout.D().String()
			if !told[key] {
				told[key] = true
				c.add(kp, "%s is above %s, which cuts the request first: lower %s or raise the timeout", d.v.D(), at.timeoutText(timeout), d.key)
			}
		}
	}
}

// timeoutText names the timeout a stall is above, and where it comes from.
func (at modelPlaces) timeoutText(timeout Duration) string {
	text := fmt.Sprintf("the default timeout %s", timeout.D())
	if at.timeout != nil {
		text = fmt.Sprintf("%s %s", at.timeout, timeout.D())
	}
	if at.agent != "" {
		text += fmt.Sprintf(" of agent %q's model requests", at.agent)
	}
	return text
}
