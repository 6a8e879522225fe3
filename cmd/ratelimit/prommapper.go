package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/statsd_exporter/pkg/mapper"
)

// loadMapper reads PROMETHEUS_MAPPER_YAML, statsd_exporter's mapping rules
// (the statsd_exporter library the reference uses, at the reference's
// version, so that its deprecated keys such as timer_type still load). A
// file that cannot be read or parsed is an error naming the variable,
// where the reference silently keeps no rule.
func loadMapper(path string) (*mapper.MetricMapper, error) {
	m := &mapper.MetricMapper{}
	if err := m.InitFromFile(path); err != nil {
		return nil, fmt.Errorf("PROMETHEUS_MAPPER_YAML=%s: %w", path, err)
	}
	return m, nil
}

// mappedSeries gathers the counters of one Collect under their mapped
// names: statistics mapped to the same name and labels add up, and a
// series whose label names differ from those first seen under its name is
// dropped, as statsd_exporter drops a conflicting event.
type mappedSeries struct {
	m      *mapper.MetricMapper
	keys   map[string][]string // metric name -> label names
	values map[string]*mappedValue
}

type mappedValue struct {
	name   string
	labels prometheus.Labels
	v      float64
}

func newMappedSeries(m *mapper.MetricMapper) *mappedSeries {
	return &mappedSeries{m: m, keys: map[string][]string{}, values: map[string]*mappedValue{}}
}

// add counts v under statsd name stat, mapped: an unmatched name is
// escaped as statsd_exporter escapes it, a dropped one is skipped.
func (s *mappedSeries) add(stat string, v float64) {
	name, labels := mapper.EscapeMetricName(stat), prometheus.Labels{}
	if mp, l, ok := s.m.GetMapping(stat, mapper.MetricTypeCounter); ok {
		if mp.Action == mapper.ActionTypeDrop {
			return
		}
		name, labels = mp.Name, l
	}
	names := make([]string, 0, len(labels))
	for k := range labels {
		names = append(names, k)
	}
	sort.Strings(names)
	if seen, ok := s.keys[name]; !ok {
		s.keys[name] = names
	} else if strings.Join(seen, ",") != strings.Join(names, ",") {
		return
	}
	id := name
	for _, k := range names {
		id += "\xff" + k + "\xff" + labels[k]
	}
	if mv := s.values[id]; mv != nil {
		mv.v += v
		return
	}
	s.values[id] = &mappedValue{name: name, labels: labels, v: v}
}

// emit sends every series as a counter.
func (s *mappedSeries) emit(ch chan<- prometheus.Metric) {
	for _, mv := range s.values {
		d := prometheus.NewDesc(mv.name, "statsd metric mapped by statsd_exporter rules", nil, mv.labels)
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, mv.v)
	}
}

// collectMapped sends the counters under the mapper's names: per rule
// ratelimit.service.rate_limit.<key>.<stat>, and the service's counters,
// in the order of their statsd names, so that which of two conflicting
// series is kept is the same at every scrape.
func (c *promCollector) collectMapped(ch chan<- prometheus.Metric) {
	s := newMappedSeries(c.mapper)
	all := map[string]uint64{}
	for key, v := range c.stats.rules.totals() {
		for i, n := range ruleStatNames {
			all[ruleStatPrefix+statName(key)+"."+n] += v[i] // two keys may escape alike
		}
	}
	for name, v := range c.serviceCounters() {
		all[name] = v
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		s.add(name, float64(all[name]))
	}
	s.emit(ch)
}
