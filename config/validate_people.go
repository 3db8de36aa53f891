package config

import "strings"

// people checks people: names a key or a group can carry in a signature
// (plain words), members named once, console kept for the console's key,
// and every key a public key.
func (c *checker) people(p *People) {
	if p == nil {
		return
	}
	for _, name := range sortedKeys(p.Keys) {
		kp := path{"people", "keys", name}
		if !plainKey.MatchString(name) || strings.Contains(name, ".") {
			c.add(kp, "invalid name %q: use letters, digits, _ or - (it is part of a signature)", name)
		}
		if _, err := PublicKey(p.Keys[name]); err != nil {
			c.add(kp, "invalid key: %v", err)
		}
	}
	for _, g := range sortedKeys(p.Groups) {
		seen := map[string]bool{}
		for i, m := range p.Groups[g] {
			mp := path{"people", "groups", g, i}
			switch {
			case !plainKey.MatchString(m):
				c.add(mp, "invalid person %q: use letters, digits, _ or -", m)
			case m == ConsoleSigner:
				c.add(mp, "%q names the console's key, not a person", m)
			case seen[m]:
				c.add(mp, "%s is listed twice in group %s", m, g)
			}
			seen[m] = true
		}
		if len(p.Groups[g]) == 0 {
			c.add(path{"people", "groups", g}, "group %s has no members", g)
		}
	}
}

// approvers checks a tool's by and approvers against people: groups that
// exist, members whose approvals can be checked (each has a key), and no
// more approvers than the groups have people.
func (c *checker) approvers(p path, a Approval, people *People) {
	if !a.Named() {
		return
	}
	if people == nil {
		c.add(p.key("by"), "approval.by names groups but the file has no people: (write people: {groups, keys})")
		return
	}
	groups := map[string]int{}
	for g := range people.Groups {
		groups[g] = 0
	}
	for i, g := range a.People.By {
		gp := p.key("by").idx(i)
		if _, ok := people.Groups[g]; !ok {
			c.add(gp, "unknown group %q (known: %s)", g, known(groups))
			continue
		}
		for _, m := range people.Groups[g] {
			if _, ok := people.Keys[m]; !ok {
				c.add(gp, "%s of group %s has no key in people.keys: approvals from %s could not be checked (unstuck people keygen --name %s makes one)", m, g, m, m)
			}
		}
	}
	if n, have := a.Needed(), len(people.Members(a.People.By)); n > have {
		c.add(p.key("approvers"), "approvers is %d, but groups %s have %d people", n, strings.Join(a.People.By, ", "), have)
	}
}
