package limitador

import "github.com/rlpkit/rlpkit/descriptor"

// RequestFromResult returns a copy of the rate-limit request res holds
// (res.Request.Clone()), so that res may be reused by the next GenerateInto
// at once. A nil res gives an empty Request.
func RequestFromResult(res *descriptor.Result) Request {
	if res == nil {
		return Request{}
	}
	return res.Request.Clone()
}
