package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadConsolePeople(t *testing.T) {
	write := func(text string) string {
		p := filepath.Join(t.TempDir(), "people")
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	people, err := readConsolePeople(write("# the approvers\nana  aaaaaaaaaaaaaaaa\n\nbob bbbbbbbbbbbbbbbb\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"aaaaaaaaaaaaaaaa": "ana", "bbbbbbbbbbbbbbbb": "bob"}, people)

	for text, want := range map[string]string{
		"ana\n":                          "line 1: want NAME TOKEN, got 1 fields",
		"ana t1\nana t2\n":               "line 2: ana is given a token on line 1 already",
		"ana same-token\nbob same-token": "line 2: bob's token is ana's too",
		"# nobody\n":                     "no one in it",
	} {
		_, err := readConsolePeople(write(text))
		require.ErrorContains(t, err, want, text)
	}
	_, err = readConsolePeople(filepath.Join(t.TempDir(), "missing"))
	require.Error(t, err)
}
