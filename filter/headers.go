package filter

import (
	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/filter/rlswire"
)

// headerPairs is descriptor.MultiValueHeaders over the host's header pairs, whose names
// Envoy has already lower-cased.
type headerPairs []Header

var _ descriptor.MultiValueHeaders = headerPairs(nil)

// Get returns the first value of name.
func (h headerPairs) Get(name string) (string, bool) {
	for i := range h {
		if h[i].Key == name {
			return h[i].Value, true
		}
	}
	return "", false
}

// Values returns every value of name, in order.
func (h headerPairs) Values(name string) []string {
	var vs []string
	for i := range h {
		if h[i].Key == name {
			vs = append(vs, h[i].Value)
		}
	}
	return vs
}

// lazyMetadata reads a Metadata property the first time a lookup needs it, so that requests
// whose actions read no metadata never cross into the host for it.
type lazyMetadata struct {
	host   Host
	path   string
	loaded bool
	md     descriptor.Metadata
}

var _ descriptor.MetadataLookup = (*lazyMetadata)(nil)

func (m *lazyMetadata) reset() { m.loaded, m.md = false, nil }

// Lookup decodes the property on first use; a missing or undecodable property holds
// nothing.
func (m *lazyMetadata) Lookup(namespace string, path []string) (any, bool) {
	if !m.loaded {
		m.loaded = true
		if data, st := m.host.Property(m.path); st == StatusOK && len(data) > 0 {
			if md, err := decodeMetadata(data); err == nil {
				m.md = md
			} else {
				m.host.Log(LogWarn, "rlpkit-filter: property "+printablePath(m.path)+": "+err.Error())
			}
		}
	}
	return m.md.Lookup(namespace, path)
}

func printablePath(p string) string {
	b := []byte(p)
	for i, c := range b {
		if c == 0 {
			b[i] = '.'
		}
	}
	return string(b)
}

// decodeMetadata decodes a serialized envoy.config.core.v3.Metadata.
func decodeMetadata(data []byte) (descriptor.Metadata, error) {
	md, err := rlswire.DecodeMetadata(data)
	return descriptor.Metadata(md), err
}
