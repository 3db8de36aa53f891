package config

// outages checks every outage.max_wait of the file: above 0 when written,
// and not above the wall_time of a run it bounds, since such a run would
// end before its wait did. A block without max_wait keeps the default (the
// agent's for a tool, else DefaultOutageWait), as other blocks' left-out
// keys do.
func (c *checker) outages(f *File) {
	for i, t := range f.Tools {
		c.maxWait(path{"tools", i, "outage", "max_wait"}, t.Outage, "the agent's policies.outage, else "+DefaultOutageWait.D().String())
	}
	c.maxWait(path{"model", "outage", "max_wait"}, f.Model.Outage, "the agent's policies.outage, else "+DefaultOutageWait.D().String())
	for i, a := range f.Agents {
		c.maxWait(path{"agents", i, "policies", "outage", "max_wait"}, a.Policies.Outage, "the default, "+DefaultOutageWait.D().String())
		if a.Model != nil {
			c.maxWait(path{"agents", i, "model", "outage", "max_wait"}, a.Model.Outage, "the file's model.outage, else the agent's policies.outage")
		}
	}
	c.outagesInWallTime(f)
}

// maxWait refuses a max_wait below or at 0. A 0 the file did not write is
// a block that leaves it out (Outage{} built in Go, or outage: {}).
func (c *checker) maxWait(p path, o *Outage, leftOut string) {
	if o == nil {
		return
	}
	if o.MaxWait < 0 || (o.MaxWait == 0 && written(c.doc, p)) {
		c.add(p, "must be > 0 (leave it out for %s), got %s", leftOut, o.MaxWait.D())
	}
}

// outagesInWallTime refuses a max_wait above the wall_time of a run it
// bounds: the agent's own, its model's, and each tool's the agent may
// call (its fallbacks and read-backs included). A tool that several agents share
// under one wall_time is told once, naming the first.
func (c *checker) outagesInWallTime(f *File) {
	index := map[string]int{}
	for i := len(f.Tools) - 1; i >= 0; i-- {
		index[f.Tools[i].Name] = i // the first of duplicate names, as toolClosure keeps
	}
	told := map[string]bool{}
	for i := range f.Agents {
		a := &f.Agents[i]
		wall, wp := runWallTime(f, i)
		if wall <= 0 || a.Kind == KindHuman {
			continue
		}
		above := func(p path, o *Outage) {
			key := p.String() + " " + wp.String()
			if o == nil || o.MaxWait <= wall || told[key] {
				return
			}
			told[key] = true
			c.add(p, "%s is above %s %s, the time limit of agent %q's runs: lower max_wait or raise wall_time",
				o.MaxWait.D(), wp, wall.D(), a.Name)
		}
		above(path{"agents", i, "policies", "outage", "max_wait"}, a.Policies.Outage)
		if a.Model != nil && a.Model.Outage != nil {
			above(path{"agents", i, "model", "outage", "max_wait"}, a.Model.Outage)
		} else {
			above(path{"model", "outage", "max_wait"}, f.Model.Outage)
		}
		for _, t := range f.toolClosure(a.Tools) {
			above(path{"tools", index[t.Name], "outage", "max_wait"}, t.Outage)
		}
	}
}

// runWallTime is the wall_time bounding agent i's runs and where the file
// sets it: the agent's budget, else the file's (as Resolve gives it).
func runWallTime(f *File, i int) (Duration, path) {
	if b := f.Agents[i].Policies.Budget; b != nil {
		return b.WallTime, path{"agents", i, "policies", "budget", "wall_time"}
	}
	if f.Budget != nil {
		return f.Budget.WallTime, path{"budget", "wall_time"}
	}
	return 0, nil
}
