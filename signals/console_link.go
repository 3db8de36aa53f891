package signals

import "net/url"

// RunPage is the path of a run's page in the console (`unstuck
// console`), the workflow id escaped as one path segment.
func RunPage(workflowID string) string { return "/runs/" + url.PathEscape(workflowID) }

// NodeLink is the path of a node of a run (a call waiting for approval, a
// human node) on the run's page: the page, at the node in its graph.
// It is relative to wherever the console is served.
func NodeLink(workflowID, node string) string {
	return RunPage(workflowID) + (&url.URL{Fragment: "node-" + node}).String()
}
