// Package docstest reads the documentation pages (README.md and docs/*.md)
// for the tests that keep them true: their fenced blocks with the markers
// on them, their links and headings, and the commands they name. The tests
// live beside what they check: links, config examples and the pages'
// shape (a short README that maps every page, each page opening with what
// it is for) here, the CLI's flags in starter and worker, the shell
// examples in testsuite.
//
// It also reads the module's packages and their imports (Packages), for
// the test that keeps the layers: no part under internal/ imports the
// layers built on it.
//
// Users: docs/testing.md, "Docs are tested".
package docstest
