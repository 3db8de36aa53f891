package replay

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	historypb "go.temporal.io/api/history/v1"
)

// Files are the sources of history files: each path a file, or a
// directory whose *.json files (in it and below, in name order) are all
// histories. A path that does not exist, or a directory without a single
// .json file, is an error: the command line is wrong, nothing is replayed.
func Files(paths []string) ([]Source, error) {
	var sources []Source
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			sources = append(sources, fileSource(p))
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				found = append(found, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no .json history files in this directory or below", p)
		}
		slices.Sort(found)
		for _, f := range found {
			sources = append(sources, fileSource(f))
		}
	}
	return sources, nil
}

func fileSource(path string) Source {
	return Source{Name: path, Load: func(context.Context) (*historypb.History, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, badInput("cannot read it: %v", err)
		}
		defer f.Close()
		return ReadHistory(f)
	}}
}
