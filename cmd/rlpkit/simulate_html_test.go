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
	"strings"
	"testing"
	"time"
)

// TestSimulateHTML writes the --html page of a replay that both admits and limits, checks
// that it loads nothing from elsewhere, and has headless Chromium render it: the screenshot
// must show the chart's admitted (green) and limited (red) bars. It skips only when Chromium
// is not installed (CI installs it).
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

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1100,1400", "--screenshot="+shot, "file://"+page)
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
	var green, red, amber, other int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case near(r, 0x2e) && near(g, 0x9e) && near(bl, 0x44):
				green++
			case near(r, 0xd7) && near(g, 0x3a) && near(bl, 0x2f):
				red++
			case near(r, 0xe0) && near(g, 0xa5) && near(bl, 0x26):
				amber++
			case r < 0xf0 || g < 0xf0 || bl < 0xf0:
				other++
			}
		}
	}
	// Bars: the chart area is 960x160 per limit; every limit admits and limits here.
	if green < 2000 || red < 2000 || amber < 2000 || other == 0 {
		t.Errorf("screenshot %dx%d: %d admitted (green) pixels, %d limited (red), %d limited elsewhere (amber), %d other; want a rendered chart with all three",
			b.Dx(), b.Dy(), green, red, amber, other)
	}
}

func near(v, want uint32) bool { return v+8 >= want && v <= want+8 }
