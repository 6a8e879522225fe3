package envoygateway

// ConfigFile returns a domain's configuration as an envoyproxy/ratelimit configuration file
// (domain and descriptors), as YAML: envoyratelimit.DomainConfig's Marshal.
func ConfigFile(c *RateLimitConfig) ([]byte, error) {
	return c.Marshal()
}
