// Package yamljson converts YAML streams to JSON and remembers, for every
// field path, the line it was written on.
//
// It exists so that packages which decode JSON strictly with the standard
// library (descriptor, which must compile to wasm, and limit) can read the
// YAML users write, and so that an error those decoders find at
// "spec.default.rateLimits[0].seconds" can be reported as
// "policies.yaml:14: spec.default.rateLimits[0].seconds: ...", through
// [Document.Line].
//
// It is not a YAML library: it does not encode YAML, decode into Go types,
// keep comments, or validate against a schema. It works on go.yaml.in/yaml/v3
// node trees.
//
// # Conversion
//
// Scalars follow the YAML 1.2 core schema, resolved as yaml.v3 resolves them
// when it decodes into an interface value:
//
//   - null, ~ and an empty value are null; true and false (also True, TRUE,
//     False, FALSE) are booleans; "yes", "no", "on", "off", "y", "n" stay
//     strings.
//   - Integers in decimal, 0x, 0o, 0b or leading-zero octal, with "_"
//     separators, are written in decimal. An integer too large for 64 bits
//     keeps all its digits as a JSON number.
//   - Floats are written as the shortest JSON number that reads back to the
//     same float64 ("1.50" becomes 1.5, "-0.0" stays -0.0). .inf, -.inf and
//     .nan are errors: JSON has no such numbers.
//   - Quoted, literal and folded scalars are always strings, and "!!str 123" is
//     the string "123". A tag of the core schema (!!int, !!float, !!bool,
//     !!null, !!timestamp) must match the value; any other tag, !!binary
//     included, is an error.
//
// Mappings become objects with their keys in the order written; sequences
// become arrays. Keys must be scalars and become strings: `1: a` has the key
// "1", `true: b` the key "true", `0x10: c` the key "16", `~: d` the key "null".
// Two keys of one mapping that become the same string (`1` and `"1"`) are a
// duplicate, reported with both lines.
//
// Anchors and aliases are resolved. Merge keys (`<<: *base`, `<<: [*a, *b]`)
// apply as in YAML 1.1: keys written in the mapping win over merged ones, and
// earlier mappings in a merge sequence win over later ones; merged keys take
// the place of the "<<" key in the output order.
//
// Strings are written as encoding/json writes them, except that "<", ">" and
// "&" are not escaped, and that characters YAML does not allow in a quoted
// scalar (DEL, C1 controls, NEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF) are,
// so that every output of Convert converts back to itself. The one exception
// is a key longer than 1024 characters: YAML limits implicit keys to 1024
// characters, so JSON holding one is not YAML.
//
// # Where it differs from yaml.v3 decoding into any
//
//   - Timestamps (`2024-01-02`) stay the strings written, as Kubernetes tools
//     keep them, instead of becoming time.Time.
//   - Integers beyond 64 bits keep their digits rather than becoming float64.
//   - Non-string keys become strings, and keys that collide as strings are
//     duplicates.
//   - Unknown tags are errors rather than strings.
//   - An alias to an anchor in an earlier document of the stream is an error:
//     YAML anchors do not reach across documents.
//
// # Limits
//
// Convert applies rlpkit's limits on every input (package inputlimit): it
// refuses a stream larger than 16 MiB; aliases and merge keys may expand a
// document by at most 100,000 values and 4 MiB of JSON beyond what is
// written in it; collections may nest at most 1,000 deep, aliases expanded.
// Beyond them conversion fails before writing anything, with the limit in
// the message, so "billion laughs" documents cost little. Readers that walk
// yaml.Node trees themselves apply the same limits with [CheckSize] and
// [CheckNode].
//
// # Errors
//
// Errors name the line: `yamljson: line 7: duplicate key "seconds" (first at
// line 5)`. When the stream holds more than one document they also name the
// document by its 0-based [Document.Index]: `yamljson: document 2: line 7:
// ...`. Lines count over the whole stream. Syntax errors of the YAML parser are
// passed on in the same form, with the line that is wrong: yaml.v3 often names
// the line where the enclosing mapping began, or the line before, so Convert
// finds the first line at which the stream stops parsing, and adds a hint for
// a tab or an unclosed quote. No input makes the package panic.
package yamljson
