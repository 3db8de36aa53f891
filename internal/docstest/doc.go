// Package docstest reads the documentation pages (README.md and docs/*.md)
// for the tests that keep them true: their fenced blocks with the markers
// on them, their links and headings, and the commands they name. The tests
// live beside what they check: links, config examples and the pages'
// shape (a short README that maps every page, each page opening with what
// it is for) here, the CLI's flags in starter and worker, the shell
// examples in testsuite.
//
// Users: docs/testing.md, "Docs are tested".
package docstest
