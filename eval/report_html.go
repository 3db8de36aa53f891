package eval

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// reportTemplate is the HTML report: one self-contained page, its CSS
// inline and no script, so it opens from a CI artifact with no network.
//
//go:embed report.html.tmpl
var reportTemplate string

// htmlReport is parsed once; html/template escapes every case name and
// reason in the context it lands in (text, attribute, SVG).
var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"f":    func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"join": strings.Join,
	"text": changeText,
}).Parse(reportTemplate))

// WriteHTML writes sc as an HTML report: the Markdown report's content,
// with a bar plot per case (pass rate, loops and cost, baseline beside
// candidate) drawn as inline SVG.
func WriteHTML(w io.Writer, sc Scorecard) error {
	return htmlReport.Execute(w, newReport(sc))
}
