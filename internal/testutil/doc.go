// Package testutil holds the small helpers that tests of several packages
// share. It is imported by tests only.
package testutil
