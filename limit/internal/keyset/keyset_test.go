package keyset

import "testing"

// TestFind checks that both the linear and the indexed set find the keys added, in the
// order of first use, and nothing else.
func TestFind(t *testing.T) {
	for _, n := range []int{3, 100} {
		s := New(n, 8, make([]string, 0, 4))
		if (s.Index != nil) != (n > 8) {
			t.Fatalf("n=%d: index %v", n, s.Index != nil)
		}
		for i, key := range []string{"a", "b", "a", "c", "b"} {
			k := s.Find(key)
			if k < 0 {
				k = len(s.Names)
				s.Names = append(s.Names, key)
				if s.Index != nil {
					s.Index[key] = k
				}
			}
			if want := map[string]int{"a": 0, "b": 1, "c": 2}[key]; k != want {
				t.Errorf("n=%d: update %d (%s) got index %d, want %d", n, i, key, k, want)
			}
		}
		if k := s.Find("d"); k != -1 {
			t.Errorf("n=%d: Find(d) = %d, want -1", n, k)
		}
		if s.Probes == 0 {
			t.Errorf("n=%d: no probes counted", n)
		}
	}
}
