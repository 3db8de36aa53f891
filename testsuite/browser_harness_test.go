package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/console"
)

// The console in a real browser: headless Chromium (Debian's package; `make
// test` finds or installs it and passes its path as UNSTUCK_CHROMIUM),
// driven over the DevTools protocol by chromedp, against the console
// handler served on loopback over the shared dev server.

// browserTestTimeout bounds a whole browser test: a browser that hangs
// fails the test saying where, instead of wedging the suite.
const browserTestTimeout = 3 * time.Minute

// stepTimeout bounds one browser step (a page load, a wait for an element).
// The console refreshes its live parts every 2 s and runs answer in
// seconds, so a step that needs longer is a failure.
const stepTimeout = 45 * time.Second

// consoleToken is the console's token in the browser tests: the first
// visit passes it as ?token=, which sets the console's cookie.
const consoleToken = "browser-test-token"

// chromiumPath is the Chromium to drive: UNSTUCK_CHROMIUM, else the first
// of chromium, chromium-browser and google-chrome on PATH. A test is
// skipped only when there is none; a UNSTUCK_CHROMIUM that is not there
// fails it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("UNSTUCK_CHROMIUM"); p != "" {
		found, err := exec.LookPath(p)
		require.NoError(t, err, "UNSTUCK_CHROMIUM=%s is not an executable Chromium", p)
		return found
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if found, err := exec.LookPath(name); err == nil {
			return found
		}
	}
	t.Skip("no Chromium installed (no UNSTUCK_CHROMIUM, and no chromium, chromium-browser or google-chrome on PATH): the console's browser tests are skipped; `make test` installs Debian's chromium package when run as root")
	return ""
}

// browser is one test's headless Chromium with one tab.
type browser struct {
	t   *testing.T
	ctx context.Context // the tab's context: every step derives its own deadline from it
}

// newBrowser starts a fresh headless Chromium (its own profile under the
// test's temp dir) that is stopped when the test ends. The flags keep it
// off the network: without the background-networking ones Chromium dials
// out at start, and this machine's closed network refuses it.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1500), // tall: the graph scrolls within 80% of the window
	)
	root, cancelRoot := context.WithTimeout(context.Background(), browserTestTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	// chromedp may log from its goroutines while the browser stops; a
	// test's log is closed once the test is over.
	var mu sync.Mutex
	over := false
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			t.Logf("chromedp: "+format, args...)
		}
	}
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithLogf(logf), chromedp.WithErrorf(logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelRoot()
		mu.Lock()
		over = true
		mu.Unlock()
	})
	// The first action starts the browser; it runs on the tab's own
	// context (bounded by browserTestTimeout), since a shorter deadline on
	// it would stop the browser when it passed.
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium %s: %v", bin, err)
	}
	return &browser{t: t, ctx: tab}
}

// do runs steps, together within stepTimeout; what says what they do,
// for the failure message.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.fail(what, err)
	}
}

// get runs one action that answers a value, bounded by stepTimeout.
func get[T any](b *browser, what string, action chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		b.fail(what, err)
	}
	return v
}

// fail ends the test naming the step, with a screenshot of the page as it
// was and the page's HTML, so a timeout says what the page showed.
func (b *browser) fail(what string, err error) {
	b.t.Helper()
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.New("not done within " + stepTimeout.String() + ": " + err.Error())
	}
	b.screenshot("FAILED-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	b.t.Fatalf("browser: %s: %v\npage HTML:\n%s", what, err, html)
}

// text is the visible text of the first element matching css, once it
// is visible.
func (b *browser) text(css string) string {
	b.t.Helper()
	b.do("wait for "+css, chromedp.WaitVisible(chromedp.CSS(css)))
	return get(b, "read the text of "+css, chromedp.Text(chromedp.CSS(css)))
}

// waitText waits until the first element matching css holds want in its
// text (an element already shown may be replaced by a newer answer).
func (b *browser) waitText(css, want string) {
	b.t.Helper()
	b.do("wait for "+css+" to say "+want, chromedp.Poll[chromedp.Void](
		"document.querySelector("+jsString(css)+")?.textContent.includes("+jsString(want)+")",
		chromedp.WithPollingTimeout(stepTimeout)))
}

// waitJS waits until the JavaScript expression is true; what says what
// it waits for.
func (b *browser) waitJS(what, expr string) {
	b.t.Helper()
	b.do("wait for "+what, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(stepTimeout)))
}

// count is the number of elements matching css now.
func (b *browser) count(css string) int {
	b.t.Helper()
	return get(b, "count "+css, chromedp.Evaluate[int]("document.querySelectorAll("+jsString(css)+").length"))
}

// screenshot writes a full-page PNG to the screenshots directory
// (artifacts/screenshots under the repository, or UNSTUCK_ARTIFACTS/
// screenshots) as name.png, and logs where.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := filepath.Join(repoRoot, "artifacts")
	if d := os.Getenv("UNSTUCK_ARTIFACTS"); d != "" {
		dir = d
	}
	dir = filepath.Join(dir, "screenshots")
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot %s", path)
}

// jsString quotes s as a JavaScript string literal (a JSON string is one).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// consoleServer serves the console over the shared dev server on loopback,
// with consoleToken, and answers its base URL.
func consoleServer(t *testing.T) string {
	t.Helper()
	h, err := console.New(serverClient, console.Options{Namespace: "default", Token: consoleToken})
	require.NoError(t, err)
	return serveConsole(t, h)
}

// serveConsole serves h on loopback until the test ends, and answers its
// base URL. A page's event stream lasts as long as its run: the test's end
// cuts it, or Close would wait for the run.
func serveConsole(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// signIn opens the console with its token once: the console sets its
// cookie and redirects to the page without the token.
func (b *browser) signIn(base string) {
	b.t.Helper()
	b.do("open the console with its token", chromedp.Navigate(base+"/?token="+consoleToken))
	loc := get(b, "read the location", chromedp.Location())
	require.NotContains(b.t, loc, "token=", "the console redirects to the page without the token")
	b.do("see the runs list", chromedp.WaitVisible(chromedp.CSS("table#runs")))
}

// unauthorized checks that the console refuses a request without the
// token, saying how to pass it.
func unauthorized(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), "token")
}
