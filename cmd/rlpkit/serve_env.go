package main

import (
	"flag"
	"strings"
)

// envPrefix starts the name of every environment variable "rlpkit serve"
// reads.
const envPrefix = "RLPKIT_"

// envNames are the environment variables whose names are not derived from
// their flag's (see envName).
var envNames = map[string]string{
	"redis": envPrefix + "REDIS_URL",
}

// envName returns the environment variable that sets flag name:
// RLPKIT_ and the name in upper case with "-" as "_" (--http-addr:
// RLPKIT_HTTP_ADDR), except for the names in envNames.
func envName(name string) string {
	if env, ok := envNames[name]; ok {
		return env
	}
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// flagSources records where each flag's value came from, so that an invalid
// value is reported under the name the user gave it.
type flagSources map[string]string

// name returns how the user set flag name: "--name" from the command line
// or by default, "RLPKIT_NAME" from the environment.
func (s flagSources) name(flag string) string {
	if env, ok := s[flag]; ok {
		return env
	}
	return "--" + flag
}

// documentEnv appends each flag's environment variable to its usage, so
// that -h lists them.
func documentEnv(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		f.Usage += " [$" + envName(f.Name) + "]"
	})
}

// setFromEnv sets every flag not given on the command line (parsed into fs
// already) whose environment variable is set and not empty: a flag wins
// over its variable. It returns where each value came from; an invalid value
// is a usage error naming the variable.
func setFromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) (flagSources, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	src := flagSources{}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		v, ok := lookup(env)
		if given[f.Name] || !ok || v == "" || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = usagef("%s=%q: invalid value for --%s: %v", env, v, f.Name, e)
			return
		}
		src[f.Name] = env
	})
	return src, err
}
