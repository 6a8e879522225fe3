package httplimit

import (
	"fmt"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/rlpkit/rlpkit/fielderr"
)

// Plugin is one named limit plugin: a `[plugins.NAME]` table of a TOML file.
type Plugin struct {
	// Name is the table's name. It names the plugin's counters.
	Name string
	// Config is the table's configuration, defaults filled in.
	Config Config
}

// rawConfig receives one plugin table. Every field takes any TOML value so
// that a value of the wrong type is reported by its key, along with every
// other problem, instead of stopping the decoding.
type rawConfig struct {
	Category any `toml:"category"`
	Type     any `toml:"type"`
	Tag      any `toml:"tag"`
	Key      any `toml:"key"`
	Max      any `toml:"max"`
	Interval any `toml:"interval"`
	Weight   any `toml:"weight"`
	Step     any `toml:"step"`
}

// configKeys are the keys of a plugin table, in pingap's order.
var configKeys = []string{"category", "type", "tag", "key", "max", "interval", "weight", "step"}

// ParseTOML reads limit plugins from pingap's TOML form, one
// `[plugins.NAME]` table each, several per file:
//
//	[plugins.rateLimit]
//	category = "limit"
//	type = "rate"
//	tag = "ip"
//	max = 600
//	interval = "60s"
//
// Keys left out take pingap's defaults (see DefaultConfig); category and max
// are required. interval is a duration string ("10s", "1m", "1h30m").
// Reading is strict: a key other than pingap's, a top-level key other than
// plugins (keys are case-sensitive), a value of the wrong type and every
// validation problem (see Config.Validate) are reported, all at once, as an
// fielderr.List with paths such as "plugins.rateLimit.max". A TOML syntax error is
// returned alone, with its line. Plugins come back in the order of the file.
func ParseTOML(data []byte) ([]Plugin, error) {
	var doc struct {
		Plugins map[string]toml.Primitive `toml:"plugins"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, fmt.Errorf("httplimit: %w", err)
	}
	// Decode every plugin first: MetaData.Undecoded is only complete after.
	decoded := map[string]fielderr.List{}
	var plugins []Plugin
	for _, k := range md.Keys() {
		if len(k) == 2 && k[0] == "plugins" {
			p, perrs := decodePlugin(&md, k[1], doc.Plugins[k[1]])
			decoded[k[1]] = perrs
			if len(perrs) == 0 {
				plugins = append(plugins, p)
			}
		}
	}
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	// Report in the order of the file: a plugin's own problems (in
	// pingap's key order), then its unknown keys.
	var errs fielderr.List
	for _, k := range md.Keys() {
		switch {
		case len(k) == 1 && k[0] == "plugins" && md.Type("plugins") != "Hash":
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: "plugins", Detail: "must be a table, got " + typeName(md.Type("plugins"))})
		case len(k) == 1 && k[0] != "plugins":
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: k.String(), Detail: "unknown key, want plugins"})
		case len(k) == 2 && k[0] == "plugins":
			errs = append(errs, decoded[k[1]]...)
		case len(k) == 3 && k[0] == "plugins" && md.Type(k[0], k[1]) == "Hash" && undecoded[k.String()]:
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: k.String(), Detail: unknownKeyMessage(k[2])})
		case len(k) == 3 && k[0] == "plugins" && md.Type(k[0], k[1]) == "Hash" && !isConfigKey(k[2]):
			// Decoded, but only by ignoring case: TOML keys are
			// case-sensitive and pingap's are lower case.
			errs = append(errs, &fielderr.Error{Pkg: pkg, Field: k.String(), Detail: unknownKeyMessage(k[2])})
		}
	}
	return plugins, errs.Err()
}

// decodePlugin reads one plugin table and validates it.
func decodePlugin(md *toml.MetaData, name string, prim toml.Primitive) (Plugin, fielderr.List) {
	if t := md.Type("plugins", name); t != "Hash" {
		return Plugin{}, fielderr.List{{Pkg: pkg, Field: toml.Key{"plugins", name}.String(), Detail: "must be a table, got " + typeName(t)}}
	}
	var raw rawConfig
	if err := md.PrimitiveDecode(prim, &raw); err != nil {
		return Plugin{}, fielderr.List{{Pkg: pkg, Field: toml.Key{"plugins", name}.String(), Detail: err.Error()}}
	}
	d := &pluginDecoder{md: md, name: name, found: map[string]fielderr.List{}}
	c := d.config(&raw)
	return Plugin{Name: name, Config: c}, d.problems(c)
}

// pluginDecoder reads the values of one plugin table, keeping the problems
// it finds by key.
type pluginDecoder struct {
	md    *toml.MetaData
	name  string
	found map[string]fielderr.List // problems by key
}

// at returns the path of the plugin's key.
func (d *pluginDecoder) at(key string) string { return toml.Key{"plugins", d.name, key}.String() }

// fail records a problem of key.
func (d *pluginDecoder) fail(key, format string, args ...any) {
	d.found[key] = append(d.found[key], &fielderr.Error{Pkg: pkg, Field: d.at(key), Detail: fmt.Sprintf(format, args...)})
}

// typeOf names the TOML type of key's value, for messages.
func (d *pluginDecoder) typeOf(key string) string {
	return typeName(d.md.Type("plugins", d.name, key))
}

// config returns the Config raw gives, defaults filled in for the keys left
// out and for those whose value could not be read.
func (d *pluginDecoder) config(raw *rawConfig) Config {
	c := DefaultConfig()
	c.Category = ""
	if raw.Category == nil {
		d.fail("category", "required, must be %q", Category)
	}
	d.str("category", raw.Category, &c.Category)
	d.str("type", raw.Type, (*string)(&c.Type))
	d.str("tag", raw.Tag, (*string)(&c.Tag))
	d.str("key", raw.Key, &c.Key)
	if raw.Max == nil {
		d.fail("max", "required")
	}
	if n, ok := d.integer("max", raw.Max); ok {
		c.Max = n
	}
	d.interval(raw.Interval, &c.Interval)
	if n, ok := d.integer("weight", raw.Weight); ok {
		if n < 0 || n > 100 {
			d.fail("weight", "must be between 0 and 100, got %d", n)
		} else {
			c.Weight = int(n)
		}
	}
	d.str("step", raw.Step, (*string)(&c.Step))
	return c
}

// str sets *dst to v, a string, if given.
func (d *pluginDecoder) str(key string, v any, dst *string) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		d.fail(key, "must be a string, got %s", d.typeOf(key))
		return
	}
	*dst = s
}

// integer returns v, an integer, and whether it is given as one.
func (d *pluginDecoder) integer(key string, v any) (int64, bool) {
	if v == nil {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		d.fail(key, "must be an integer, got %s", d.typeOf(key))
	}
	return n, ok
}

// interval sets *dst to v, a duration string, if given.
func (d *pluginDecoder) interval(v any, dst *time.Duration) {
	if v == nil {
		return
	}
	if s, ok := v.(string); !ok {
		d.fail("interval", "must be a duration string such as \"10s\", got %s", d.typeOf("interval"))
	} else if dur, err := time.ParseDuration(s); err != nil {
		d.fail("interval", "invalid duration %q, want one such as \"10s\" or \"1m\"", s)
	} else {
		*dst = dur
	}
}

// problems validates c, what decoded, then returns every problem in
// pingap's key order; a key whose value could not be read is not
// validated.
func (d *pluginDecoder) problems(c Config) fielderr.List {
	var valid map[string]fielderr.List
	if err := c.Validate(); err != nil {
		valid = map[string]fielderr.List{}
		for _, e := range err.(fielderr.List) {
			valid[e.Field] = append(valid[e.Field], &fielderr.Error{Pkg: pkg, Field: d.at(e.Field), Detail: e.Detail})
		}
	}
	var errs fielderr.List
	for _, k := range configKeys {
		if len(d.found[k]) > 0 {
			errs = append(errs, d.found[k]...)
		} else {
			errs = append(errs, valid[k]...)
		}
	}
	return errs
}

func unknownKeyMessage(key string) string {
	for _, want := range configKeys {
		if strings.EqualFold(key, want) {
			return fmt.Sprintf("unknown key (keys are case-sensitive: did you mean %q?)", want)
		}
	}
	return "unknown key, want one of " + strings.Join(configKeys, ", ")
}

func isConfigKey(key string) bool {
	for _, k := range configKeys {
		if k == key {
			return true
		}
	}
	return false
}

// typeName turns MetaData.Type's names into the words of a message.
func typeName(t string) string {
	switch t {
	case "Hash":
		return "a table"
	case "Array", "ArrayHash":
		return "an array"
	case "Integer":
		return "an integer"
	case "":
		return "nothing"
	default:
		return "a " + strings.ToLower(t)
	}
}
