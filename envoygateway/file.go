package envoygateway

import (
	"encoding/json"

	"sigs.k8s.io/yaml"
)

// ConfigFile returns a domain's configuration as an envoyproxy/ratelimit configuration file
// (domain and descriptors), as YAML.
func ConfigFile(c *RateLimitConfig) ([]byte, error) {
	js, err := json.Marshal(struct {
		Domain      string        `json:"domain"`
		Descriptors []*Descriptor `json:"descriptors"`
	}{c.Domain, c.Descriptors})
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(js)
}
