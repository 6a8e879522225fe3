module github.com/rlpkit/rlpkit/internal/benchcmp

go 1.26.0

replace github.com/rlpkit/rlpkit => ../..

require (
	github.com/rlpkit/rlpkit v0.0.0-00010101000000-000000000000
	golang.org/x/time v0.16.0
)
