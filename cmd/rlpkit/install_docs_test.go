package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeInstall holds the README's Install section to the repository: the Go version is
// go.mod's, every go install and go get names this module, and every ./cmd/... that ko or
// a Dockerfile builds is a main package.
func TestReadmeInstall(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Install\n")
	if !ok {
		t.Fatal("README has no Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(string(gomod))[1]
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(gomod))[1]
	if !strings.Contains(section, "Go "+goVersion+" or later") || !strings.Contains(section, "golang:"+goVersion) {
		t.Errorf("the Install section does not name go.mod's Go %s (in the text and the Dockerfile)", goVersion)
	}
	for _, m := range regexp.MustCompile(`go (?:install|get) (\S+)@`).FindAllStringSubmatch(section, -1) {
		if !strings.HasPrefix(m[1], module) {
			t.Errorf("%q is not of module %s", m[0], module)
		}
	}
	cmds := regexp.MustCompile(`\./cmd/[a-z-]+`).FindAllString(section, -1)
	if len(cmds) == 0 {
		t.Fatal("the Install section builds no ./cmd/...")
	}
	for _, c := range cmds {
		main, err := os.ReadFile(filepath.Join(root, c, "main.go"))
		if err != nil || !strings.Contains(string(main), "package main") {
			t.Errorf("the Install section builds %s, which is not a main package: %v", c, err)
		}
	}
}

// TestReadmeShape holds the README to what a new user reads first: it starts with the two
// commands (compile the toystore example, run the tests) and stays short, the reference
// being under docs/.
func TestReadmeShape(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const start = "```sh\ngo run ./cmd/rlpkit compile examples/toystore\ngo test ./...\n```\n"
	if !strings.HasPrefix(string(readme), start) {
		t.Errorf("README.md does not start with the two commands:\n%s", start)
	}
	if n := strings.Count(string(readme), "\n"); n > 420 {
		t.Errorf("README.md has %d lines, want at most about 400: move reference text to docs/", n)
	}
}
