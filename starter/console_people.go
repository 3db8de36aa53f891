package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// readConsolePeople reads the people's tokens file of `unstuck console
// --people`: a line "NAME TOKEN" each; blank lines and lines starting
// with # are skipped. It answers token to name; a name or a token given
// twice is refused, naming the line.
func readConsolePeople(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	people := map[string]string{}
	lineOf := map[string]int{} // a name's line, for a name given twice
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("line %d: want NAME TOKEN, got %d fields", n, len(fields))
		}
		name, token := fields[0], fields[1]
		if first, ok := lineOf[name]; ok {
			return nil, fmt.Errorf("line %d: %s is given a token on line %d already", n, name, first)
		}
		if other, ok := people[token]; ok {
			return nil, fmt.Errorf("line %d: %s's token is %s's too: give each person their own", n, name, other)
		}
		people[token], lineOf[name] = name, n
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(people) == 0 {
		return nil, fmt.Errorf("no one in it: write a line NAME TOKEN for each person")
	}
	return people, nil
}
