package config

import "regexp"

// mcpServerName is a server's name: the part before / in an agent's
// tools: entries, and the start of its tools' default names.
var mcpServerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,32}$`)

// envVarName is the name of an environment variable a server's program
// may read (env:) or a header value may name (${VAR}).
var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mcpServers checks the MCP servers and answers their names.
func (c *checker) mcpServers(ss []MCPServer) map[string]int {
	names := map[string]int{}
	for i, s := range ss {
		p := path{"mcp_servers", i}
		switch j, dup := names[s.Name]; {
		case s.Name == "":
			c.add(p.key("name"), "missing: every MCP server needs a name")
		case !mcpServerName.MatchString(s.Name):
			c.add(p.key("name"), "invalid MCP server name %q: use 1 to 32 letters, digits, _ or -", s.Name)
		case dup:
			c.add(p.key("name"), "duplicate MCP server name %q (also mcp_servers[%d])", s.Name, j)
		default:
			names[s.Name] = i
		}
		switch {
		case s.Command != "" && s.URL != "":
			c.add(p, "set command (a program spoken to over stdio) or url (streamable HTTP), not both")
		case s.Command == "" && s.URL == "":
			c.add(p, "missing command or url: say how the server is reached")
		case s.URL != "":
			if why := httpURLProblem(s.URL); why != "" {
				c.add(p.key("url"), "%s", why)
			}
			if len(s.Args) > 0 || len(s.Env) > 0 {
				c.add(p, "args and env are for a server started with command, not one reached at url")
			}
		default:
			if len(s.Headers) > 0 {
				c.add(p.key("headers"), "headers are for a server reached at url, not one started with command")
			}
		}
		for j, e := range s.Env {
			if !envVarName.MatchString(e) {
				c.add(p.key("env").idx(j), "invalid environment variable name %q: write the name only (its value is read when the server starts)", e)
			}
		}
		c.headers(p.key("headers"), s.Headers)
		if s.Timeout < 0 {
			c.add(p.key("timeout"), "must be > 0, got %s", s.Timeout.D())
		}
	}
	return names
}

// mcpTool checks a tools: entry that names a tool of an MCP server: its
// schema comes from the server, so the entry gives none.
func (c *checker) mcpTool(p path, t *Tool) {
	mp := p.key("mcp")
	c.mcpRef(mp.key("server"), t.MCP.Server, t.MCP.Tool)
	switch {
	case t.MCP.Tool == "":
		c.add(mp.key("tool"), "missing: the tool's name on the server")
	case t.MCP.Tool == MCPAll:
		c.add(mp.key("tool"), "a tools: entry names one tool of the server (give agents server/* for all of them)")
	}
	if t.MCP.Timeout < 0 {
		c.add(mp.key("timeout"), "must be > 0, got %s", t.MCP.Timeout.D())
	}
	if t.Parameters != nil {
		c.add(p.key("parameters"), "an MCP tool's parameters are the input schema its server lists: leave them out")
	}
}

// mcpRef checks that an MCP tool names a server of the file.
func (c *checker) mcpRef(p path, server, tool string) {
	if server == "" {
		c.add(p, "missing: the MCP server's name")
		return
	}
	if _, ok := c.servers[server]; !ok {
		c.add(p, "unknown MCP server %q in %q (mcp_servers: %s)", server, server+"/"+tool, known(c.servers))
	}
}
