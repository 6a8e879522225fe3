package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSimulateHTML writes the --html page of a replay that both admits and limits, checks
// that it loads nothing from elsewhere, and has headless Chromium render it: the screenshot
// must show the chart's admitted (green) and limited (red) bars. It skips only when Chromium
// is not installed (CI installs it). No token is charged, and the page shows none.
func TestSimulateHTML(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		fmt.Fprintf(&log, `{"start_time":%q,"method":"GET","path":"/admin","authority":"api.toystore.com","downstream_remote_address":"10.0.0.%d"}`+"\n",
			start.Add(time.Duration(i)*40*time.Millisecond).Format(time.RFC3339Nano), i%7)
	}
	logFile, page := filepath.Join(dir, "access.json"), filepath.Join(dir, "report.html")
	if err := os.WriteFile(logFile, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"simulate", "--gateway", "gateway-system/mygateway", filepath.Join("..", "..", "examples", "toystore"), "--log", logFile, "--html", page}
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if external := regexp.MustCompile(`(?i)\b(src|href)\s*=|url\(|@import|<script`).Find(html); external != nil {
		t.Errorf("the page refers to a resource (%q); it must be self-contained", external)
	}
	if n := strings.Count(string(html), `<svg class="timeline"`); n != 3 {
		t.Errorf("the page has %d timelines, want one per limit (3)", n)
	}
	// The log spans 2 minutes from midnight: a tick every 15 s, 8 per chart, and a count
	// axis from 0 to the peak per bar.
	if n := len(regexp.MustCompile(`<text class="tick time"[^>]*>00:0[01]:[0-5][05]</text>`).FindAll(html, -1)); n != 3*8 {
		t.Errorf("the page has %d time ticks, want 8 per chart (00:00:00 to 00:01:45 every 15s)", n)
	}
	if n := len(regexp.MustCompile(`<text class="tick count"[^>]*>0</text>`).FindAll(html, -1)); n != 3 {
		t.Errorf("the page has %d count axes starting at 0, want one per chart", n)
	}
	if !strings.Contains(string(html), `<rect class="elsewhere"`) || !strings.Contains(string(html), "limited elsewhere") {
		t.Errorf("the page shows no request limited elsewhere; the admin limit rejects requests the other two applied to")
	}

	if strings.Contains(string(html), `class="tokens-timeline"`) || strings.Contains(string(html), "tokens charged") {
		t.Errorf("the page shows tokens; no token was charged in this replay")
	}

	px := renderPage(t, page, 1400)
	// Bars: the chart area is 960x160 per limit; every limit admits and limits here.
	if px.green < 2000 || px.red < 2000 || px.amber < 2000 || px.other == 0 {
		t.Errorf("screenshot: %d admitted (green) pixels, %d limited (red), %d limited elsewhere (amber), %d other; want a rendered chart with all three",
			px.green, px.red, px.amber, px.other)
	}
}

// TestSimulateHTMLTokens writes the --html page of a replay of examples/ai-gateway, whose
// lines give the tokens of each response: beside each budget's requests, a timeline of the
// tokens charged on it, which headless Chromium must render (blue bars).
func TestSimulateHTMLTokens(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tokens := 0
	for i := range 600 {
		tenant, model, status := []string{"acme", "globex", "initech"}[i%3], []string{"gpt-4o-mini", "gpt-4o"}[i/3%2], 200
		if i%10 == 9 {
			status = 503
		}
		fmt.Fprintf(&log, `{"start_time":%q,"method":"POST","path":"/v1/chat/completions","authority":"llm.example.com","x_tenant_id":%q,"x_ai_eg_model":%q,"response_code":%d,"total_tokens":%d}`+"\n",
			start.Add(time.Duration(i)*200*time.Millisecond).Format(time.RFC3339Nano), tenant, model, status, 30+i%7)
		tokens += 30 + i%7
	}
	logFile, page := filepath.Join(dir, "access.json"), filepath.Join(dir, "report.html")
	if err := os.WriteFile(logFile, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"simulate", "--gateway", "ai/llm", filepath.Join("..", "..", "examples", "ai-gateway"), "--log", logFile, "--html", page}
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), `<svg class="timeline"`); n != 2 {
		t.Errorf("the page has %d request timelines, want one per budget (2)", n)
	}
	if n := strings.Count(string(html), `<svg class="tokens-timeline"`); n != 2 {
		t.Errorf("the page has %d token timelines, want one per budget tokens were charged on (2)", n)
	}
	// Each budget is charged the tokens of the admitted 2xx responses it applies to, fewer
	// than the log's; the shared budget applies to every line.
	m := regexp.MustCompile(`<p>(\d+) tokens charged once responses were done, against 1000 per 3600s</p>`).FindSubmatch(html)
	if m == nil {
		t.Fatalf("the page gives no tokens charged on the shared 1000-token budget")
	}
	if n, _ := strconv.Atoi(string(m[1])); n <= 0 || n >= tokens {
		t.Errorf("the shared budget was charged %d tokens, want some of the log's %d (refused and 503 lines charge nothing)", n, tokens)
	}
	if !strings.Contains(string(html), "tokens charged on the limit") {
		t.Errorf("the legend does not name the token bars")
	}

	px := renderPage(t, page, 1600)
	if px.blue < 2000 || px.green < 2000 || px.red < 2000 {
		t.Errorf("screenshot: %d token (blue) pixels, %d admitted (green), %d limited (red); want rendered token and request charts", px.blue, px.green, px.red)
	}
}

// pixels counts a screenshot's pixels by the page's colours.
type pixels struct{ green, red, amber, blue, other int }

// renderPage has headless Chromium take a screenshot of page, height pixels tall, and counts
// its pixels. It skips only when Chromium is not installed (CI installs it).
func renderPage(t *testing.T, page string, height int) pixels {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), fmt.Sprintf("--window-size=1100,%d", height), "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	var px pixels
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case near(r, 0x2e) && near(g, 0x9e) && near(bl, 0x44):
				px.green++
			case near(r, 0xd7) && near(g, 0x3a) && near(bl, 0x2f):
				px.red++
			case near(r, 0xe0) && near(g, 0xa5) && near(bl, 0x26):
				px.amber++
			case near(r, 0x35) && near(g, 0x72) && near(bl, 0xb0):
				px.blue++
			case r < 0xf0 || g < 0xf0 || bl < 0xf0:
				px.other++
			}
		}
	}
	return px
}

func near(v, want uint32) bool { return v+8 >= want && v <= want+8 }
