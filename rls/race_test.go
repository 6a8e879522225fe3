//go:build race

package rls

func init() { raceEnabled = true }
