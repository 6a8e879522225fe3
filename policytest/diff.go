package policytest

import (
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// diffDescriptors returns a line diff of two descriptor lists, one descriptor a line
// ("  " both, "- " only wanted, "+ " only got), or "" when they are equal. It is stable text,
// unlike go-cmp's reports, so that it can be compared in tests of the command.
func diffDescriptors(want, got []rlsmsg.Descriptor) string {
	a, b := descriptorLines(want), descriptorLines(got)
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	same := true
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i, same = i+1, false
		default:
			out.WriteString("+ " + b[j] + "\n")
			j, same = j+1, false
		}
	}
	if same {
		return ""
	}
	return out.String()
}

func descriptorLines(ds []rlsmsg.Descriptor) []string {
	out := make([]string, len(ds))
	for i := range ds {
		out[i] = "{" + ds[i].Describe() + "}"
	}
	return out
}
