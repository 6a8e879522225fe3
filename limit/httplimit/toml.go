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
	at := func(key string) string { return toml.Key{"plugins", name, key}.String() }
	if t := md.Type("plugins", name); t != "Hash" {
		return Plugin{}, fielderr.List{{Pkg: pkg, Field: toml.Key{"plugins", name}.String(), Detail: "must be a table, got " + typeName(t)}}
	}
	var raw rawConfig
	if err := md.PrimitiveDecode(prim, &raw); err != nil {
		return Plugin{}, fielderr.List{{Pkg: pkg, Field: toml.Key{"plugins", name}.String(), Detail: err.Error()}}
	}
	found := map[string]fielderr.List{} // problems by key
	fail := func(key, format string, args ...any) {
		found[key] = append(found[key], &fielderr.Error{Pkg: pkg, Field: at(key), Detail: fmt.Sprintf(format, args...)})
	}
	str := func(key string, v any, dst *string) {
		if v == nil {
			return
		}
		s, ok := v.(string)
		if !ok {
			fail(key, "must be a string, got %s", typeName(md.Type("plugins", name, key)))
			return
		}
		*dst = s
	}
	integer := func(key string, v any) (int64, bool) {
		if v == nil {
			return 0, false
		}
		n, ok := v.(int64)
		if !ok {
			fail(key, "must be an integer, got %s", typeName(md.Type("plugins", name, key)))
		}
		return n, ok
	}

	c := DefaultConfig()
	c.Category = ""
	if raw.Category == nil {
		fail("category", "required, must be %q", Category)
	}
	str("category", raw.Category, &c.Category)
	str("type", raw.Type, (*string)(&c.Type))
	str("tag", raw.Tag, (*string)(&c.Tag))
	str("key", raw.Key, &c.Key)
	if raw.Max == nil {
		fail("max", "required")
	}
	if n, ok := integer("max", raw.Max); ok {
		c.Max = n
	}
	if raw.Interval != nil {
		if s, ok := raw.Interval.(string); !ok {
			fail("interval", "must be a duration string such as \"10s\", got %s", typeName(md.Type("plugins", name, "interval")))
		} else if d, err := time.ParseDuration(s); err != nil {
			fail("interval", "invalid duration %q, want one such as \"10s\" or \"1m\"", s)
		} else {
			c.Interval = d
		}
	}
	if n, ok := integer("weight", raw.Weight); ok {
		if n < 0 || n > 100 {
			fail("weight", "must be between 0 and 100, got %d", n)
		} else {
			c.Weight = int(n)
		}
	}
	str("step", raw.Step, (*string)(&c.Step))

	// Validate what decoded, then report in pingap's key order; a key
	// whose value could not be read is not validated.
	var valid map[string]fielderr.List
	if err := c.Validate(); err != nil {
		valid = map[string]fielderr.List{}
		for _, e := range err.(fielderr.List) {
			valid[e.Field] = append(valid[e.Field], &fielderr.Error{Pkg: pkg, Field: at(e.Field), Detail: e.Detail})
		}
	}
	var errs fielderr.List
	for _, k := range configKeys {
		if len(found[k]) > 0 {
			errs = append(errs, found[k]...)
		} else {
			errs = append(errs, valid[k]...)
		}
	}
	return Plugin{Name: name, Config: c}, errs
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
