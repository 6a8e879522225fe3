package envoyratelimit

import (
	"errors"
	"fmt"
	"strings"
)

// File is one configuration file: its key (the path relative to the runtime
// directory with '/' replaced by '.', as the reference names it in errors)
// and its contents.
type File struct {
	Key  string
	Data []byte
}

// LoadOptions configures Load. The zero value is the reference's default.
type LoadOptions struct {
	// MergeDomains merges the top-level descriptors of files that share a
	// domain (MERGE_DOMAIN_CONFIG=true) instead of rejecting the second
	// file; a composite key defined twice is still an error.
	MergeDomains bool
	// Keys is the key format the configuration will be counted under:
	// with KeysReference, a limit of another algorithm than the fixed
	// window is an error, since the reference's counters are fixed windows.
	Keys KeyFormat
}

// Load parses and checks files, in order, and returns their configuration.
// On any problem it returns a nil Config and every problem found, each a
// *LoadError, joined with errors.Join: one bad file rejects the whole set,
// as in the reference.
func Load(files []File, o LoadOptions) (*Config, error) {
	c := &Config{domains: map[string]*Domain{}}
	var errs []error
	for _, f := range files {
		fd, ferrs := parseFile(f.Key, f.Data)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		d := c.domains[fd.domain]
		switch {
		case d == nil:
			d = &Domain{Name: fd.domain}
			c.domains[fd.domain] = d
			c.order = append(c.order, fd.domain)
		case !o.MergeDomains:
			errs = append(errs, &LoadError{File: f.Key, Line: fd.line, Path: "domain", Msg: fmt.Sprintf(msgDupDomainFmt, fd.domain)})
			continue
		}
		d.Files = append(d.Files, f.Key)
		errs = append(errs, index(&d.root, fd.nodes, fd.domain+".")...)
	}
	if len(errs) == 0 && o.Keys == KeysReference {
		errs = referenceKeyErrors(c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// index adds nodes to lv, computing their composite and statistics keys and
// reporting duplicate composite keys.
func index(lv *level, nodes []*Node, parentKey string) []error {
	var errs []error
	if lv.byKey == nil {
		lv.byKey = map[string]*Node{}
	}
	for _, n := range nodes {
		n.composite = n.Key
		if n.Value != "" {
			n.composite += "_" + n.Value
		}
		n.StatsKey = parentKey + n.composite
		if _, dup := lv.byKey[n.composite]; dup {
			errs = append(errs, &LoadError{File: n.File, Line: n.Line, Path: "descriptors", Msg: fmt.Sprintf(msgDupCompositFmt, n.StatsKey)})
			continue
		}
		lv.byKey[n.composite] = n
		if strings.Contains(n.Value, "*") {
			lv.wild.add(n, len(lv.wildcards))
			lv.wildcards = append(lv.wildcards, n)
		}
		lv.nodes = append(lv.nodes, n)
		children := n.children.nodes
		n.children = level{}
		errs = append(errs, index(&n.children, children, n.StatsKey+".")...)
	}
	return errs
}
