// Command rlpkit works with rate-limit policy for Gateway API and Envoy. See run for its
// subcommands.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
