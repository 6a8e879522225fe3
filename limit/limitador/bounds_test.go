package limitador_test

import (
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit/inputlimittest"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/yamljson"
)

// TestDecodeLimitsBounds: a limits file past a limit on input is refused
// with the limit in the message: aliases and nesting of YAML by its
// conversion (yamljson, as every caller converts), nesting and size of
// JSON by DecodeLimits itself.
func TestDecodeLimitsBounds(t *testing.T) {
	const head = "- namespace: ns\n  max_value: 1\n  seconds: 1\n  conditions: "
	tests := []struct {
		name, in string
		yaml     bool
		want     string
	}{
		{"aliases", head + inputlimittest.Laughs(5) + "\n", true, "yamljson: line 4: aliases and merge keys expand the document by more than 100000 values"},
		{"nesting in YAML", head + inputlimittest.TooDeep() + "\n", true, "yamljson: line 4: collections nest more than 1000 deep"},
		{"nesting in JSON", `[{"namespace": "ns", "max_value": 1, "seconds": 1,` + "\n" + `"conditions": ` + inputlimittest.TooDeep() + "}]", false, "limit: line 2: nesting exceeds the limit of 1000 levels"},
		{"size", `[{"namespace": ` + inputlimittest.BigString() + `, "max_value": 1, "seconds": 1}]`, false, "limit: the size, 16777265 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			var err error
			if tc.yaml {
				data, err = yamljson.ToJSON(data)
			}
			if err == nil {
				_, err = limitador.DecodeLimits(data)
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("DecodeLimits = %.400v\nwant %s", err, tc.want)
			}
		})
	}
}
