package yamljson_test

import (
	"fmt"

	"github.com/rlpkit/rlpkit/yamljson"
)

func ExampleConvert() {
	const policies = `# policies.yaml
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata:
  name: toystore
spec:
  default:
    rateLimits:
      - variables: ["context.request.http.method"]
        max_value: 5
        seconds: 0
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: gateway, labels: {app.kubernetes.io/name: edge}}
`
	docs, err := yamljson.Convert([]byte(policies))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range docs {
		fmt.Printf("document %d, line %d: %s\n", d.Index, d.StartLine, d.JSON)
	}

	// A strict JSON decoder reports a field path; Line finds where it is written.
	path := "spec.default.rateLimits[0].seconds"
	fmt.Printf("policies.yaml:%d: %s: must be greater than 0\n", docs[0].Line(path), path)
	fmt.Println(docs[1].Line("metadata.labels[app.kubernetes.io/name]"))
	// Output:
	// document 0, line 2: {"apiVersion":"apim.kuadrant.io/v1alpha1","kind":"RateLimitPolicy","metadata":{"name":"toystore"},"spec":{"default":{"rateLimits":[{"variables":["context.request.http.method"],"max_value":5,"seconds":0}]}}}
	// document 1, line 12: {"apiVersion":"apim.kuadrant.io/v1alpha1","kind":"RateLimitPolicy","metadata":{"name":"gateway","labels":{"app.kubernetes.io/name":"edge"}}}
	// policies.yaml:11: spec.default.rateLimits[0].seconds: must be greater than 0
	// 15
}

func ExampleToJSON() {
	out, err := yamljson.ToJSON([]byte("descriptor_value: yes\nport: 0x1F90\n"))
	fmt.Println(string(out), err)

	_, err = yamljson.ToJSON([]byte("seconds: 1\nmax_value: 5\nseconds: 2\n"))
	fmt.Println(err)
	// Output:
	// {"descriptor_value":"yes","port":8080} <nil>
	// yamljson: line 3: duplicate key "seconds" (first at line 1)
}
