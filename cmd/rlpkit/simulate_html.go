package main

import (
	"fmt"
	"html/template"
	"os"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/policytest"
)

// writeHTML writes a self-contained page: per limit, its counts and an inline SVG timeline
// of admitted (green) and limited (red) requests per bucket. It loads nothing from anywhere.
func writeHTML(file string, r *policytest.Report) error {
	type chart struct {
		Title, Summary string
		Width, Height  int
		Bars           []template.HTML
		Axis           string
	}
	var charts []chart
	const width, height = 960, 160
	for _, ls := range r.Limits {
		c := chart{
			Title:   fmt.Sprintf("%s: %d per %ds (%s)", ls.Limit.Name, ls.Limit.MaxValue, ls.Limit.Seconds, ls.Limit.Namespace),
			Summary: fmt.Sprintf("%d requests, %d admitted, %d limited, peak %d/s", ls.Requests, ls.Admitted, ls.Limited, ls.PeakPerSecond),
			Width:   width, Height: height,
		}
		var peak int64 = 1
		for _, b := range ls.Timeline {
			peak = max(peak, b.Admitted+b.Limited)
		}
		n := max(len(ls.Timeline), 1)
		bw := float64(width) / float64(n)
		for i, b := range ls.Timeline {
			x := float64(i) * bw
			ha := float64(b.Admitted) / float64(peak) * height
			hl := float64(b.Limited) / float64(peak) * height
			var sb strings.Builder
			if ha > 0 {
				fmt.Fprintf(&sb, `<rect class="admitted" x="%.2f" y="%.2f" width="%.2f" height="%.2f"><title>%d admitted</title></rect>`, x, height-ha, max(bw, 0.5), ha, b.Admitted)
			}
			if hl > 0 {
				fmt.Fprintf(&sb, `<rect class="limited" x="%.2f" y="%.2f" width="%.2f" height="%.2f"><title>%d limited</title></rect>`, x, height-ha-hl, max(bw, 0.5), hl, b.Limited)
			}
			c.Bars = append(c.Bars, template.HTML(sb.String()))
		}
		if r.BucketWidth > 0 {
			end := r.Origin.Add(time.Duration(len(ls.Timeline)) * r.BucketWidth)
			c.Axis = fmt.Sprintf("%s to %s, %s per bar", r.Origin.Format(time.RFC3339), end.Format(time.RFC3339), r.BucketWidth)
		}
		charts = append(charts, c)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	err = pageTemplate.Execute(f, struct {
		Requests int64
		Charts   []chart
	}{r.Requests, charts})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
.legend span { display: inline-block; width: 1em; height: 1em; vertical-align: middle; margin: 0 0.3em 0 1em; }
</style>
</head>
<body>
<h1>{{.Requests}} requests replayed</h1>
<p class="legend"><span class="admitted" style="background:#2e9e44"></span>admitted<span style="background:#d73a2f"></span>limited</p>
{{range .Charts}}<section class="limit">
<h2>{{.Title}}</h2>
<p>{{.Summary}}</p>
<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bars}}{{.}}{{end}}</svg>
<p>{{.Axis}}</p>
</section>
{{end}}</body>
</html>
`))
