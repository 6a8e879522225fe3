package fielderr

import "strconv"

// Path is a field path under construction, written as Kubernetes'
// apimachinery writes field.Path ("rateLimitPolicies[0].hostnames[1]"),
// for the packages that may not depend on apimachinery. The zero value is
// the input as a whole.
type Path string

// Child returns the path of the field name below p.
func (p Path) Child(name string) Path {
	if p == "" {
		return Path(name)
	}
	return p + "." + Path(name)
}

// Index returns the path of element i of the list at p.
func (p Path) Index(i int) Path { return p + "[" + Path(strconv.Itoa(i)) + "]" }

// Key returns the path of the entry with key k of the map at p.
func (p Path) Key(k string) Path { return p + "[" + Path(k) + "]" }
