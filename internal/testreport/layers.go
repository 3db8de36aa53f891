package main

import "strings"

// The layers of make test, in the order the report lists them.
var layerOrder = []string{"lint", "unit", "workflow", "replay", "real server", "browser", "cluster"}

const modulePath = "github.com/unstuck-dev/unstuck/"

// layerOf is the layer of one test of a package, for output that was not
// given a layer by name (make test's cluster part is).
func layerOf(pkg, test string) string {
	switch strings.TrimPrefix(pkg, modulePath) {
	case "workflows":
		return "workflow"
	case "testsuite/replay":
		return "replay"
	case "testsuite":
		if strings.HasPrefix(test, "TestBrowser") {
			return "browser"
		}
		return "real server"
	case "load":
		return "real server" // it runs loads on the dev server
	}
	return "unit"
}
