package docstest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/docstest"
)

func pages(t *testing.T) []docstest.Page {
	t.Helper()
	ps, err := docstest.Pages(docstest.Root())
	require.NoError(t, err)
	return ps
}

// Every relative link and image of README.md and docs/*.md leads to a
// file of the repository, and every #anchor to a heading (or <a> anchor)
// of its page.
func TestDocsLinksResolve(t *testing.T) {
	root := docstest.Root()
	all := pages(t)
	anchors := map[string]map[string]bool{}
	for _, p := range all {
		anchors[p.Path] = p.Anchors()
	}
	checked := 0
	for _, p := range all {
		for _, l := range p.Links() {
			where := fmt.Sprintf("%s:%d: link %q", p.Path, l.Line, l.Target)
			if err := checkLink(root, p.Path, l.Target, anchors); err != nil {
				t.Errorf("%s: %v", where, err)
			}
			checked++
		}
	}
	require.Greater(t, checked, 50, "the pages' links were not found")
}

func checkLink(root, page, target string, anchors map[string]map[string]bool) error {
	if target == "" {
		return fmt.Errorf("empty target")
	}
	if regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(target) {
		return nil // http(s), mailto: not this test's
	}
	file, anchor, _ := strings.Cut(target, "#")
	rel := page
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return fmt.Errorf("an absolute path: links are relative to the page")
		}
		rel = path.Clean(path.Join(path.Dir(page), file))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("leads out of the repository")
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("no such file %s", rel)
		}
	}
	if anchor == "" {
		return nil
	}
	ids, ok := anchors[rel]
	if !ok {
		if strings.HasSuffix(rel, ".md") {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			ids = docstest.Page{Path: rel, Lines: strings.Split(string(data), "\n")}.Anchors()
		} else if regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`).MatchString(anchor) {
			return nil
		} else {
			return fmt.Errorf("an anchor into %s, which has no headings", rel)
		}
	}
	if !ids[anchor] {
		return fmt.Errorf("%s has no heading with the id %q", rel, anchor)
	}
	return nil
}

// The link and slug rules themselves, on pages made up for them.
func TestDocsLinkRules(t *testing.T) {
	require.Equal(t, "deploying-new-builds-worker-versioning", docstest.Slug("Deploying new builds (Worker Versioning)"))
	require.Equal(t, "the-contract-api--config", docstest.Slug("The `contract`: API & config"))
	require.Equal(t, "max_steps-and-statex", docstest.Slug("max_steps and †state.x"))
	require.Equal(t, "a-link", docstest.Slug("A [link](x.md)"))

	page := docstest.Page{Path: "docs/a.md", Lines: strings.Split("# Top\n## Run\n## Run\n"+
		"[one](#run-1) [two](b.md#top) ![img](../x.png) `[not](a link)`\n```sh\n[no](nowhere.md)\n```\n<img src=\"y.png\">\n", "\n")}
	require.True(t, page.Anchors()["run"])
	require.True(t, page.Anchors()["run-1"])
	require.False(t, page.Anchors()["run-2"])
	var got []string
	for _, l := range page.Links() {
		got = append(got, fmt.Sprintf("%d %s %v", l.Line, l.Target, l.Image))
	}
	require.Equal(t, []string{"4 #run-1 false", "4 b.md#top false", "4 ../x.png true", "8 y.png true"}, got)

	anchors := map[string]map[string]bool{"docs/a.md": page.Anchors(), "README.md": {"quick-start": true}}
	root := docstest.Root()
	require.NoError(t, checkLink(root, "docs/a.md", "#run-1", anchors))
	require.Error(t, checkLink(root, "docs/a.md", "#run-2", anchors))
	require.NoError(t, checkLink(root, "docs/a.md", "../README.md#quick-start", anchors))
	require.Error(t, checkLink(root, "docs/a.md", "../README.md#quick-stop", anchors))
	require.Error(t, checkLink(root, "docs/a.md", "nowhere.md", anchors))
	require.Error(t, checkLink(root, "docs/a.md", "../../etc/passwd", anchors))
	require.NoError(t, checkLink(root, "docs/a.md", "https://temporal.io/x#y", anchors))
}

// A shell example is a block whose info string says which shell, so the
// docs' shell test finds it: a block with none that holds a command is
// refused.
func TestDocsShellExamplesSayTheirLanguage(t *testing.T) {
	looksLikeShell := regexp.MustCompile(`^(\$ |(bin/)?(unstuck|unstuck-worker|temporal|make|docker|go) )`)
	for _, p := range pages(t) {
		for _, b := range p.Blocks() {
			if b.Lang != "" {
				continue
			}
			for _, line := range strings.Split(b.Body, "\n") {
				if looksLikeShell.MatchString(line) {
					t.Errorf("%s: a command in a block with no language: give it ```sh (commands) or ```console ($ commands and their output): %q", b.Where(), line)
					break
				}
			}
		}
	}
}

// yamlKinds are the info-string words a yaml block may carry after
// "yaml", and what each says the block is.
var yamlKinds = map[string]string{
	"":               "a whole agent config: loads with no error",
	"fragment":       "a piece of the top level of a config: loads merged into starter/demo_agents.yaml",
	"outline":        "a sketch of a config with alternatives and placeholders: parses, and every key is a config field",
	"dynamic-config": "Temporal dynamic config: each key's values are those of the file its first comment names",
	"compose":        "a Docker Compose file: parses",
	"eval-case":      "an eval case file (docs/eval.md): loads as unstuck eval run reads it",
}

// Every ```yaml block of README.md and docs/*.md is what its info string
// says it is (yamlKinds), and loads as such.
func TestDocsConfigExamplesLoad(t *testing.T) {
	root := docstest.Root()
	demo, err := os.ReadFile(filepath.Join(root, "starter", "demo_agents.yaml"))
	require.NoError(t, err)
	// Every variable an example names has a value (a token, say), but the
	// demo config's own, which keep their defaults.
	opts := app.ConfigOptions()
	opts.Getenv = func(name string) (string, bool) {
		if strings.HasPrefix(name, "UNSTUCK_DEMO") {
			return "", false
		}
		return "docs-test-" + strings.ToLower(name), true
	}
	seen := map[string]int{}
	for _, p := range pages(t) {
		for _, b := range p.Blocks() {
			if b.Lang != "yaml" && b.Lang != "yml" {
				continue
			}
			kind := strings.Join(b.Info, " ")
			root := ""
			if strings.HasPrefix(kind, "outline ") {
				kind, root = "outline", strings.TrimPrefix(kind, "outline ")
			}
			if _, ok := yamlKinds[kind]; !ok {
				t.Errorf("%s: unknown kind %q: one of none, fragment, outline [agent], dynamic-config, compose, eval-case", b.Where(), kind)
				continue
			}
			seen[kind]++
			if err := checkYAML(b, kind, root, demo, opts); err != nil {
				t.Errorf("%s: %s, yet: %v", b.Where(), yamlKinds[kind], err)
			}
		}
	}
	require.NotZero(t, seen[""], "no whole config was found among the pages' yaml blocks")
}

func checkYAML(b docstest.Block, kind, root string, demo []byte, opts config.Options) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(b.Body), &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("not a YAML mapping")
	}
	top := doc.Content[0]
	switch kind {
	case "":
		_, err := config.Parse(b.Where(), []byte(b.Body), opts)
		return err
	case "fragment":
		merged, err := mergeInto(demo, top)
		if err != nil {
			return err
		}
		_, err = config.Parse(b.Where()+" merged into starter/demo_agents.yaml", merged, opts)
		return err
	case "outline":
		t := reflect.TypeFor[config.File]()
		switch root {
		case "":
		case "agent":
			t = reflect.TypeFor[config.Agent]()
		default:
			return fmt.Errorf("an outline of %q: only of the file (none) or of an agent", root)
		}
		return knownKeys(top, t, "")
	case "dynamic-config":
		return sameAsFile(top, b.Body)
	case "eval-case":
		_, err := eval.Parse(b.Where(), []byte(b.Body))
		return err
	}
	return nil // compose: parses
}

// mergeInto puts a fragment's top-level keys into the base config: a
// list of named entries (tools, agents, mcp_servers) gets each of the
// fragment's, replacing the one of the same name; anything else is set.
func mergeInto(base []byte, frag *yaml.Node) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, err
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(frag.Content); i += 2 {
		key, val := frag.Content[i], frag.Content[i+1]
		at := -1
		for j := 0; j+1 < len(top.Content); j += 2 {
			if top.Content[j].Value == key.Value {
				at = j + 1
			}
		}
		switch {
		case at < 0:
			top.Content = append(top.Content, key, val)
		case val.Kind == yaml.SequenceNode && top.Content[at].Kind == yaml.SequenceNode:
			list := top.Content[at]
			for _, entry := range val.Content {
				name := nameOf(entry)
				replaced := false
				for k, old := range list.Content {
					if name != "" && nameOf(old) == name {
						list.Content[k], replaced = entry, true
					}
				}
				if !replaced {
					list.Content = append(list.Content, entry)
				}
			}
		default:
			top.Content[at] = val
		}
	}
	return yaml.Marshal(&doc)
}

func nameOf(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// knownKeys checks every key of n is a field of t (by its yaml tag), down
// the tree; a key starting with "..." is a placeholder.
func knownKeys(n *yaml.Node, t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, item := range n.Content {
			if err := knownKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := knownKeys(n.Content[i+1], t.Elem(), at+"."+n.Content[i].Value); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name != "-" && f.IsExported() {
				fields[name] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if strings.HasPrefix(key, "...") {
				continue
			}
			ft, ok := fields[key]
			if !ok {
				return fmt.Errorf("line %d: %s%s is not a field of the config (%s)", n.Content[i].Line, strings.TrimPrefix(at+".", "."), key, t.Name())
			}
			if err := knownKeys(n.Content[i+1], ft, at+"."+key); err != nil {
				return err
			}
		}
	}
	return nil
}

// sameAsFile checks a dynamic-config block against the file its first
// line names (# deploy/temporal/dynamicconfig.yaml): each of its keys is
// there, with the same values.
func sameAsFile(top *yaml.Node, body string) error {
	first, _, _ := strings.Cut(body, "\n")
	name := strings.TrimSpace(strings.TrimPrefix(first, "#"))
	if !strings.HasPrefix(first, "#") || name == "" {
		return fmt.Errorf("its first line names no file (# deploy/temporal/dynamicconfig.yaml)")
	}
	data, err := os.ReadFile(filepath.Join(docstest.Root(), filepath.FromSlash(name)))
	if err != nil {
		return err
	}
	var file, block map[string]any
	if err := yaml.Unmarshal(data, &file); err != nil {
		return err
	}
	if err := top.Decode(&block); err != nil {
		return err
	}
	for key, v := range block {
		want, _ := json.Marshal(v)
		got, _ := json.Marshal(file[key])
		if string(want) != string(got) {
			return fmt.Errorf("%s: %s here, %s in %s", key, want, got, name)
		}
	}
	return nil
}

// The yaml kinds' checks catch what they are for.
func TestDocsConfigExampleRules(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join(docstest.Root(), "starter", "demo_agents.yaml"))
	require.NoError(t, err)
	opts := app.ConfigOptions()
	check := func(kind, root, body string) error {
		return checkYAML(docstest.Block{Page: "x.md", Lang: "yaml", Body: body}, kind, root, demo, opts)
	}
	require.Error(t, check("", "", "agents: [{ name: a, instructions: x, tools: [nope] }]\n"))
	require.NoError(t, check("fragment", "", "worker: { activity_pollers: 4 }\n"))
	require.Error(t, check("fragment", "", "worker: { activity_poller: 4 }\n"))
	require.NoError(t, check("fragment", "", "agents: [{ name: travel, instructions: x, tools: [search_flights] }]\n"))
	require.Error(t, check("fragment", "", "agents: [{ name: travel, instructions: x, tools: [search_flight] }]\n"))
	require.NoError(t, check("outline", "", "tools: [{ name: a, effect: read | write, parameters: { ...schema... } }]\n"))
	require.Error(t, check("outline", "", "tools: [{ name: a, efect: read }]\n"))
	require.NoError(t, check("outline", "agent", "graph: { start: A, nodes: { A: { tool: t } } }\n"))
	require.Error(t, check("outline", "agent", "graph: { start: A, nodes: { A: { tol: t } } }\n"))
	require.NoError(t, check("dynamic-config", "", "# deploy/temporal/dynamicconfig.yaml\nsystem.enableEagerWorkflowStart:\n  - value: true\n"))
	require.Error(t, check("dynamic-config", "", "# deploy/temporal/dynamicconfig.yaml\nsystem.enableEagerWorkflowStart:\n  - value: false\n"))
}
