package wasmshim

import "testing"

func TestResponseValue(t *testing.T) {
	body := []byte(`{"usage": {"total_tokens": 1234, "a/b": "x", "list": [5, 6]}, "model": {"n": 1}}`)
	for _, tc := range []struct {
		expr, want string
		ok, fail   bool
	}{
		{expr: `responseBodyJSON("/usage/total_tokens")`, want: "1234", ok: true},
		{expr: ` responseBodyJSON( "/usage/a~1b" ) `, want: "x", ok: true},
		{expr: `responseBodyJSON("/usage/list/1")`, want: "6", ok: true},
		{expr: `responseBodyJSON("/model")`, want: `{"n":1}`, ok: true},
		{expr: `responseBodyJSON("/usage/prompt_tokens")`, ok: true, fail: true},
		{expr: `responseBodyJSON("usage")`, ok: true, fail: true},
		{expr: `string(responseBodyJSON("/usage/total_tokens"))`},
		{expr: `request.method`},
	} {
		got, ok, err := responseValue(tc.expr, body)
		if ok != tc.ok || (err != nil) != tc.fail || got != tc.want {
			t.Errorf("responseValue(%s) = %q, %v, %v; want %q, %v, error %v", tc.expr, got, ok, err, tc.want, tc.ok, tc.fail)
		}
	}
	if _, ok, err := responseValue(`responseBodyJSON("/usage/total_tokens")`, []byte("data: not json")); !ok || err == nil {
		t.Errorf("a body that is not JSON: ok %v, error %v; want an error", ok, err)
	}
}
