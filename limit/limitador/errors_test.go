package limitador

import (
	"errors"
	"testing"

	"github.com/rlpkit/rlpkit/fielderr"
)

// TestErrorsAs: DecodeLimits and ValidateLimits report *fielderr.Error
// values of this package, found by errors.As.
func TestErrorsAs(t *testing.T) {
	_, decodeErr := DecodeLimits([]byte(`[{"namespace": "n", "max_value": 1, "seconds": 0}]`))
	validateErr := ValidateLimits([]Limit{{Namespace: "n", MaxValue: 1, Seconds: 0}})
	for name, err := range map[string]error{"DecodeLimits": decodeErr, "ValidateLimits": validateErr} {
		var fe *fielderr.Error
		if !errors.As(err, &fe) {
			t.Fatalf("%s: errors.As(%v, *fielderr.Error) = false, want true", name, err)
		}
		if fe.Pkg != "limit" || fe.Field != "[0].seconds" || fe.Error() != "limit: [0].seconds: must be greater than 0" {
			t.Errorf("%s: problem = %#v, want limit's [0].seconds", name, fe)
		}
	}
}
