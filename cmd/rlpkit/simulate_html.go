package main

import (
	"fmt"
	"html/template"
	"math"
	"os"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/policytest"
)

// The chart area of a timeline, and the margins of its axes, in SVG units.
const (
	chartWidth, chartHeight = 960, 160
	marginLeft, marginRight = 56, 16
	marginTop, marginBottom = 8, 36
)

// chart is one limit's section of the page: its requests and, when tokens were charged
// on it, its tokens.
type chart struct {
	Title, Summary string
	Width, Height  int
	Body           template.HTML
	// TokensSummary and Tokens are the token timeline; Tokens is empty when none was
	// charged.
	TokensSummary string
	Tokens        template.HTML
}

// writeHTML writes a self-contained page: per limit, its counts and an inline SVG timeline
// of admitted (green), limited (red) and limited elsewhere (amber) requests per bucket,
// with a time axis (UTC) and a count axis, and beside it, for a limit tokens were charged
// on once responses were done, a timeline of those tokens (blue) per bucket. It loads
// nothing from anywhere.
func writeHTML(file string, r *policytest.Report) error {
	var charts []chart
	tokens := false
	for i := range r.Limits {
		c := limitChart(r, &r.Limits[i])
		tokens = tokens || c.Tokens != ""
		charts = append(charts, c)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	err = pageTemplate.Execute(f, struct {
		Requests int64
		Tokens   bool
		Charts   []chart
	}{r.Requests, tokens, charts})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// limitChart draws one limit's timeline.
func limitChart(r *policytest.Report, ls *policytest.LimitStats) chart {
	c := chart{
		Title: fmt.Sprintf("%s: %d per %ds (%s)", ls.Limit.Name, ls.Limit.MaxValue, ls.Limit.Seconds, ls.Limit.Namespace),
		Summary: fmt.Sprintf("%d requests, %d admitted, %d limited, %d limited elsewhere, peak %d/s",
			ls.Requests, ls.Admitted, ls.Limited, ls.LimitedElsewhere, ls.PeakPerSecond),
		Width: marginLeft + chartWidth + marginRight, Height: marginTop + chartHeight + marginBottom,
	}
	c.Body = timelineSVG(r, len(ls.Timeline), func(i int) []barPart {
		b := ls.Timeline[i]
		return []barPart{{"admitted", "admitted", b.Admitted}, {"limited", "limited", b.Limited}, {"elsewhere", "limited elsewhere", b.LimitedElsewhere}}
	})
	if ls.Tokens > 0 {
		c.TokensSummary = fmt.Sprintf("%d tokens charged once responses were done, against %d per %ds", ls.Tokens, ls.Limit.MaxValue, ls.Limit.Seconds)
		c.Tokens = timelineSVG(r, len(ls.Timeline), func(i int) []barPart {
			return []barPart{{"tokens", "tokens", int64(min(ls.Timeline[i].Tokens, math.MaxInt64))}}
		})
	}
	return c
}

// barPart is one stacked part of a timeline's bar: its CSS class, what its count is of, and
// the count.
type barPart struct {
	class, what string
	n           int64
}

// timelineSVG draws n stacked bars, parts(i) the parts of bar i, with a count axis from 0
// to the tallest bar and the time axis of r's buckets.
func timelineSVG(r *policytest.Report, n int, parts func(i int) []barPart) template.HTML {
	var peak int64 = 1
	for i := range n {
		var h int64
		for _, p := range parts(i) {
			h += p.n
		}
		peak = max(peak, h)
	}
	var sb strings.Builder
	bw := float64(chartWidth) / float64(max(n, 1))
	for i := range n {
		x := marginLeft + float64(i)*bw
		y := float64(marginTop + chartHeight)
		for _, part := range parts(i) {
			h := float64(part.n) / float64(peak) * chartHeight
			if h <= 0 {
				continue
			}
			y -= h
			fmt.Fprintf(&sb, `<rect class="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f"><title>%d %s</title></rect>`,
				part.class, x, y, max(bw, 0.5), h, part.n, part.what)
		}
	}
	countAxis(&sb, peak)
	if r.BucketWidth > 0 {
		timeAxis(&sb, r.Origin, time.Duration(n)*r.BucketWidth)
		fmt.Fprintf(&sb, `<text class="label" x="%d" y="%d" text-anchor="end">UTC, %s per bar</text>`,
			marginLeft+chartWidth, marginTop+chartHeight+marginBottom-2, r.BucketWidth)
	}
	return template.HTML(sb.String())
}

// countAxis draws the count axis: ticks at 0, half the peak and the peak.
func countAxis(sb *strings.Builder, peak int64) {
	x := marginLeft
	fmt.Fprintf(sb, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, x, marginTop, x, marginTop+chartHeight)
	for _, v := range []int64{0, peak / 2, peak} {
		if v == peak/2 && (v == 0 || v == peak) {
			continue
		}
		y := float64(marginTop+chartHeight) - float64(v)/float64(peak)*chartHeight
		fmt.Fprintf(sb, `<line class="axis" x1="%d" y1="%.2f" x2="%d" y2="%.2f"/><text class="tick count" x="%d" y="%.2f" text-anchor="end" dominant-baseline="middle">%d</text>`,
			x-4, y, x, y, x-6, y, v)
	}
}

// tickSteps are the time-axis intervals, the first that gives at most 8 ticks is used.
var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// timeAxis draws the time axis over [origin, origin+span): ticks at round multiples of a
// step, labelled with the UTC time of day (and the date when the span exceeds a day).
func timeAxis(sb *strings.Builder, origin time.Time, span time.Duration) {
	y := marginTop + chartHeight
	fmt.Fprintf(sb, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, marginLeft, y, marginLeft+chartWidth, y)
	if span <= 0 {
		return
	}
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if span/s <= 8 {
			step = s
			break
		}
	}
	layout := "15:04:05"
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	}
	for t := origin.Truncate(step); t.Before(origin.Add(span)); t = t.Add(step) {
		if t.Before(origin) {
			continue
		}
		x := marginLeft + float64(t.Sub(origin))/float64(span)*chartWidth
		fmt.Fprintf(sb, `<line class="axis" x1="%.2f" y1="%d" x2="%.2f" y2="%d"/><text class="tick time" x="%.2f" y="%d" text-anchor="middle">%s</text>`,
			x, y, x, y+4, x, y+16, t.UTC().Format(layout))
	}
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rlpkit simulate</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
section { margin-bottom: 2em; }
h2 { font-size: 1em; margin-bottom: 0.2em; }
svg { background: #f6f6f6; border: 1px solid #ccc; }
.admitted { fill: #2e9e44; }
.limited { fill: #d73a2f; }
.elsewhere { fill: #e0a526; }
.tokens { fill: #3572b0; }
.axis { stroke: #555; stroke-width: 1; }
.tick, .label { font-size: 11px; fill: #333; }
.legend span { display: inline-block; width: 1em; height: 1em; vertical-align: middle; margin: 0 0.3em 0 1em; }
</style>
</head>
<body>
<h1>{{.Requests}} requests replayed</h1>
<p class="legend"><span style="background:#2e9e44"></span>admitted<span style="background:#d73a2f"></span>limited by this limit<span style="background:#e0a526"></span>limited elsewhere (by another limit){{if .Tokens}}<span style="background:#3572b0"></span>tokens charged on the limit{{end}}</p>
{{range .Charts}}<section class="limit">
<h2>{{.Title}}</h2>
<p>{{.Summary}}</p>
<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{.Body}}</svg>
{{if .Tokens}}<p>{{.TokensSummary}}</p>
<svg class="tokens-timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="tokens: {{.Title}}">{{.Tokens}}</svg>
{{end}}</section>
{{end}}</body>
</html>
`))
