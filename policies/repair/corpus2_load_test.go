package repair

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/unstuck-dev/unstuck/config"
)

// The second corpus (issue 14) is data, not generated: testdata/corpus2
// holds five tools' schemas (tools.json) and hand-written calls with the
// mistakes today's models make (cases.yaml), each with the arguments a
// correct repair gives or marked as needing judgement. It is written from
// the mistakes, not from the rules, so it measures them.

// corpus2Categories are the mistake categories of the corpus, in the
// order the table shows them.
var corpus2Categories = []string{
	"numbers", "booleans", "lists", "double_encoded", "wrapped",
	"lenient_json", "dates", "enum_case", "defaults",
}

// corpus2Case is one call of the corpus. Raw is the arguments text as the
// model sent it; Want the repaired arguments (JSON), empty when Judgement.
type corpus2Case struct {
	Tool      string `yaml:"tool"`
	Category  string `yaml:"category"`
	Raw       string `yaml:"raw"`
	Want      string `yaml:"want"`
	Judgement bool   `yaml:"judgement"`
	Trap      bool   `yaml:"trap"`
	Note      string `yaml:"note"`
}

// corpus2Tool is a tool of the corpus: its schema document and the schema
// compiled once.
type corpus2Tool struct {
	schema   map[string]any
	compiled *jsonschema.Schema
}

// corpus2 is the loaded corpus: the fixed "now" relative dates are read
// against, the tools and the cases.
type corpus2 struct {
	now   time.Time
	tools map[string]corpus2Tool
	cases []corpus2Case
}

// loadCorpus2 reads testdata/corpus2.
func loadCorpus2(t testing.TB) corpus2 {
	t.Helper()
	dir := filepath.Join("testdata", "corpus2")
	toolsText, err := os.ReadFile(filepath.Join(dir, "tools.json"))
	require.NoError(t, err)
	doc, err := decodeJSON(toolsText)
	require.NoError(t, err)
	docs, ok := doc.(map[string]any)
	require.True(t, ok, "tools.json is an object of schemas")
	c := corpus2{tools: map[string]corpus2Tool{}}
	for name, s := range docs {
		schema, ok := s.(map[string]any)
		require.True(t, ok, "%s: the schema is an object", name)
		compiled, err := config.CompileSchema(name, schema)
		require.NoError(t, err)
		c.tools[name] = corpus2Tool{schema: schema, compiled: compiled}
	}
	casesText, err := os.ReadFile(filepath.Join(dir, "cases.yaml"))
	require.NoError(t, err)
	var file struct {
		Now   string        `yaml:"now"`
		Cases []corpus2Case `yaml:"cases"`
	}
	require.NoError(t, yaml.Unmarshal(casesText, &file))
	c.now, err = time.Parse(time.RFC3339, file.Now)
	require.NoError(t, err, "now")
	c.cases = file.Cases
	return c
}

// name is how a case is shown: its index, category and tool.
func (k corpus2Case) name(i int) string { return fmt.Sprintf("%03d/%s/%s", i, k.Category, k.Tool) }
