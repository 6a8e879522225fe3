package limitador

import "strconv"

// Warning is a problem in a list of limits that does not stop them from
// loading: a condition or variable that can never match.
type Warning struct {
	// Path locates the condition or variable, such as "[0].conditions[1]".
	Path string
	// Message says why it never matches and what to write instead.
	Message string
}

// String returns "PATH: MESSAGE".
func (w Warning) String() string { return w.Path + ": " + w.Message }

// LimitWarnings returns a warning for every condition and variable of limits
// that loads but can never match, in order: a field selected on an entry's
// value, such as descriptors[0].req.method, which limitador accepts (its CEL
// is not type-checked) and never matches; the warning shows the bracket form
// of the key with dots, descriptors[0]['req.method']. Limits that do not
// validate give no warnings for their broken parts.
func LimitWarnings(limits []Limit) []Warning {
	var out []Warning
	for i := range limits {
		out = append(out, limitWarnings(&limits[i], "["+strconv.Itoa(i)+"]")...)
	}
	return out
}
