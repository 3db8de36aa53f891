// Command unstuck is the command-line client of unstuck: it starts agent
// runs and reads their status and trace. It is a thin layer over the
// Temporal Go client, so everything it does can also be done with the plain
// `temporal` CLI; each command's help names the equivalent.
package main
