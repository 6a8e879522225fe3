package hostindex_test

import (
	"fmt"

	"github.com/rlpkit/rlpkit/hostindex"
)

func ExampleIndex() {
	ix := hostindex.New[string]()
	for _, add := range []struct{ pattern, policy string }{
		{"*", "default/global"},
		{"*.toystore.com", "toystore/all"},
		{"api.toystore.com", "toystore/api"},
		{"API.toystore.com.", "toystore/api-admin"}, // the same pattern, normalised
	} {
		if err := ix.Add(add.pattern, add.policy); err != nil {
			fmt.Println(err)
		}
	}
	if err := ix.Add("toys.*", "bad"); err != nil {
		fmt.Println(err)
	}

	m, ok := ix.Lookup("Api.Toystore.com:8443")
	fmt.Println(m.Pattern, m.Values, ok)

	ix.Walk("api.toystore.com", func(m hostindex.Match[string]) bool {
		fmt.Println("walk:", m.Pattern, m.Values)
		return true
	})
	// Output:
	// hostindex: invalid pattern "toys.*": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"
	// api.toystore.com [toystore/api toystore/api-admin] true
	// walk: api.toystore.com [toystore/api toystore/api-admin]
	// walk: *.toystore.com [toystore/all]
	// walk: * [default/global]
}
