package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Page is one documentation page.
type Page struct {
	Path  string // relative to the root, with slashes: README.md, docs/loops.md
	Lines []string
}

// Pages reads README.md and every docs/*.md under root.
func Pages(root string) ([]Page, error) {
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	names = append([]string{filepath.Join(root, "README.md")}, names...)
	var pages []Page
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Path: filepath.ToSlash(rel), Lines: strings.Split(string(data), "\n")})
	}
	if len(pages) < 2 {
		return nil, fmt.Errorf("no docs/*.md under %s", root)
	}
	return pages, nil
}

// Block is one fenced code block.
type Block struct {
	Page string
	Line int      // the opening fence's line, 1-based
	Lang string   // the info string's first word: sh, yaml, console...; "" for none
	Info []string // the info string's further words: fragment, dynamic-config...
	Body string   // the lines between the fences
	// NotRun is the reason of a `<!-- not run: reason -->` comment on the
	// line just before the fence; Marked says there is one.
	NotRun string
	Marked bool
}

// Where names the block for messages: docs/x.md:12 (```sh).
func (b Block) Where() string {
	return fmt.Sprintf("%s:%d (```%s)", b.Page, b.Line, strings.Join(append([]string{b.Lang}, b.Info...), " "))
}

var (
	fenceOpen = regexp.MustCompile("^( {0,3})(```+|~~~+)\\s*(.*)$")
	notRun    = regexp.MustCompile(`^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$`)
)

// Blocks are the page's fenced code blocks, in order.
func (p Page) Blocks() []Block {
	var blocks []Block
	for i := 0; i < len(p.Lines); i++ {
		m := fenceOpen.FindStringSubmatch(p.Lines[i])
		if m == nil {
			continue
		}
		indent, fence := len(m[1]), m[2]
		words := strings.Fields(m[3])
		b := Block{Page: p.Path, Line: i + 1}
		if len(words) > 0 {
			b.Lang, b.Info = words[0], words[1:]
		}
		if i > 0 {
			if nm := notRun.FindStringSubmatch(p.Lines[i-1]); nm != nil {
				b.NotRun, b.Marked = nm[1], true
			}
		}
		var body []string
		j := i + 1
		for ; j < len(p.Lines); j++ {
			line := p.Lines[j]
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" ") == "" {
				break
			}
			// Lines of a block in a list item are indented like its fence.
			for k := 0; k < indent && strings.HasPrefix(line, " "); k++ {
				line = line[1:]
			}
			body = append(body, line)
		}
		b.Body = strings.Join(body, "\n")
		if len(body) > 0 {
			b.Body += "\n"
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks
}

// Prose is the page with its fenced blocks blanked out, fences included,
// so line numbers stay the page's.
func (p Page) Prose() []string {
	out := make([]string, len(p.Lines))
	copy(out, p.Lines)
	for _, b := range p.Blocks() {
		end := b.Line + strings.Count(b.Body, "\n")
		for i := b.Line - 1; i <= end && i < len(out); i++ {
			out[i] = ""
		}
	}
	return out
}

// Span is a piece of a page's text and the line it starts on.
type Span struct {
	Line int
	Text string
}

// codeSpans are the inline code spans of text, by CommonMark's rule: a
// run of backticks up to the next run of as many. Each is [start, end,
// inner start, inner end].
func codeSpans(text string) [][4]int {
	var spans [][4]int
	run := func(i int) int {
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(i)
		closed := false
		for j := i + n; j < len(text); {
			if text[j] != '`' {
				j++
				continue
			}
			if m := run(j); m == n {
				spans = append(spans, [4]int{i, j + n, i + n, j})
				i, closed = j+n, true
				break
			} else {
				j += m
			}
		}
		if !closed {
			i += n
		}
	}
	return spans
}

// blankCode replaces the inside of each inline code span with x's (same
// length, newlines kept), so links are not looked for in code.
func blankCode(text string) string {
	b := []byte(text)
	for _, s := range codeSpans(text) {
		for k := s[2]; k < s[3]; k++ {
			if b[k] != '\n' {
				b[k] = 'x'
			}
		}
	}
	return string(b)
}

// InlineCode is every inline code span of the page's prose, its
// whitespace (line breaks included) folded to single spaces.
func (p Page) InlineCode() []Span {
	text := strings.Join(p.Prose(), "\n")
	var spans []Span
	for _, m := range codeSpans(text) {
		inner := text[m[2]:m[3]]
		spans = append(spans, Span{
			Line: 1 + strings.Count(text[:m[0]], "\n"),
			Text: strings.Join(strings.Fields(inner), " "),
		})
	}
	return spans
}

// Link is a markdown link or image of the page's prose.
type Link struct {
	Line   int
	Target string // as written: path, path#anchor or #anchor
	Image  bool
}

var (
	mdLink   = regexp.MustCompile(`(!?)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	htmlLink = regexp.MustCompile(`<(a|img)\s[^>]*?(href|src)="([^"]*)"`)
)

// Links are the page's links and images outside code: markdown ones and
// HTML <a href> and <img src>.
func (p Page) Links() []Link {
	text := blankCode(strings.Join(p.Prose(), "\n"))
	var links []Link
	for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
		links = append(links, Link{
			Line:   1 + strings.Count(text[:m[0]], "\n"),
			Target: text[m[4]:m[5]],
			Image:  m[3] > m[2],
		})
	}
	for _, m := range htmlLink.FindAllStringSubmatchIndex(text, -1) {
		links = append(links, Link{
			Line:   1 + strings.Count(text[:m[0]], "\n"),
			Target: text[m[6]:m[7]],
			Image:  text[m[2]:m[3]] == "img",
		})
	}
	return links
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// Anchors are the fragment ids of the page's headings, by GitHub's rules
// (Slug, a repeated heading's id suffixed -1, -2, ...), and of its
// <a name> and <a id> anchors.
func (p Page) Anchors() map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range p.Prose() {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := Slug(m[1])
		id := slug
		if n := seen[slug]; n > 0 {
			id = fmt.Sprintf("%s-%d", slug, n)
		}
		seen[slug]++
		anchors[id] = true
	}
	return anchors
}

// Slug is the id GitHub gives a heading: its text (links as their text,
// no code marks, emphasis or HTML tags) in lower case, every character
// but letters, digits, spaces, '-' and '_' dropped, spaces made '-'.
func Slug(heading string) string {
	text := linkText.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Command is one simple command: its words, quotes removed, with any
// leading VAR=value assignments dropped.
type Command struct {
	Line int // the line it starts on: of the page, for a page's commands
	Args []string
}

// Program is the base name of the command's program: unstuck for
// bin/unstuck.
func (c Command) Program() string {
	if len(c.Args) == 0 {
		return ""
	}
	return filepath.Base(c.Args[0])
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// Commands splits shell text into simple commands: lines (a trailing
// backslash continues one), cut at unquoted ; & and |, without
// comments. Quotes are removed the way the shell does; nothing is
// expanded. line is the first line's number.
func Commands(text string, line int) []Command {
	var cmds []Command
	var words []string
	var word strings.Builder
	inWord := false
	start := line
	flushWord := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	flushCmd := func() {
		flushWord()
		for len(words) > 0 && assignment.MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) > 0 {
			cmds = append(cmds, Command{Line: start, Args: words})
		}
		words = nil
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if len(words) == 0 && !inWord && r != '\n' && !unicode.IsSpace(r) {
			start = line
		}
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] == '\n' {
				line++
				continue
			}
			word.WriteRune(rs[i])
			inWord = true
		case r == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				if rs[i] == '\n' {
					line++
				}
				word.WriteRune(rs[i])
			}
		case r == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]) {
					i++
				}
				if rs[i] == '\n' {
					line++
				}
				word.WriteRune(rs[i])
			}
		case r == '#' && !inWord:
			for i+1 < len(rs) && rs[i+1] != '\n' {
				i++
			}
		case r == '\n':
			flushCmd()
			line++
		case r == ';' || r == '&' || r == '|':
			flushCmd()
		case unicode.IsSpace(r):
			flushWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	flushCmd()
	return cmds
}

// ShellText is what of a block the shell would run: a console block's
// commands (its "$ " lines, and the lines a trailing backslash
// continues), the whole of any other block. Lines not run are left
// blank, so line numbers hold.
func (b Block) ShellText() string {
	if b.Lang != "console" {
		return b.Body
	}
	lines := strings.Split(b.Body, "\n")
	cont := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "$ "):
			lines[i] = strings.TrimPrefix(l, "$ ")
		case cont:
		default:
			lines[i] = ""
		}
		cont = strings.HasSuffix(lines[i], "\\")
	}
	return strings.Join(lines, "\n")
}

// IsShell says whether a block's language is a shell's.
func (b Block) IsShell() bool {
	switch b.Lang {
	case "sh", "bash", "shell", "console", "shell-session", "zsh":
		return true
	}
	return false
}

// PageCommands are the commands a page names: those of its shell blocks
// and of its inline code spans.
func (p Page) PageCommands() []Command {
	var cmds []Command
	for _, b := range p.Blocks() {
		if b.IsShell() {
			cmds = append(cmds, Commands(b.ShellText(), b.Line+1)...)
		}
	}
	for _, s := range p.InlineCode() {
		cmds = append(cmds, Commands(s.Text, s.Line)...)
	}
	return cmds
}

// FlagWord trims the optional-syntax brackets a word may carry in prose
// ([--signal]) and answers it.
func FlagWord(word string) string { return strings.Trim(word, "[]") }

// CheckCommands hands the arguments of every command of the pages under
// Root whose program is prog (unstuck, unstuck-worker) to check, and
// fails t with each problem it answers, naming the page and line. It
// answers how many commands it checked.
func CheckCommands(t testing.TB, prog string, check func(args []string) []string) int {
	t.Helper()
	pages, err := Pages(Root())
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range pages {
		for _, c := range p.PageCommands() {
			if c.Program() != prog {
				continue
			}
			checked++
			for _, problem := range check(c.Args[1:]) {
				t.Errorf("%s:%d: %q: %s", p.Path, c.Line, strings.Join(c.Args, " "), problem)
			}
		}
	}
	return checked
}
