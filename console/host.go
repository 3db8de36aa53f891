package console

import (
	"net"
	"net/http"
	"slices"
	"strings"
)

// knownHost guards a console without a token against DNS rebinding: a web
// page whose name an attacker points at 127.0.0.1 reaches the loopback
// console as a same-origin page, with the attacker's name in Host. So
// without a token only a loopback Host (127.0.0.1, [::1], localhost) or a
// name given in AllowedHosts (the reverse proxy's) is served. With a token
// the token is the guard and any Host is served.
func (c *Console) knownHost(w http.ResponseWriter, r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if isLoopback(host) || slices.Contains(c.opts.AllowedHosts, host) {
		return true
	}
	http.Error(w, "403 forbidden: this console has no token and answers only to a loopback address (127.0.0.1, localhost), not to Host "+r.Host+
		". Behind a reverse proxy, start it with --allow-host "+host+"; elsewhere give it a token (--token)", http.StatusForbidden)
	return false
}
