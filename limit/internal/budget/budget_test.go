package budget

import "testing"

type until int64

func (u until) ExpiredAt(now int64) bool { return int64(u) <= now }

// TestPutMakesRoom: a full map drops its expired entries first, then others down to seven
// eighths of the budget, never holds more than its budget, and refuses an entry larger
// than the whole budget.
func TestPutMakesRoom(t *testing.T) {
	const overhead = 10
	m := New[until](8*(overhead+1), overhead)
	for i := range 8 {
		m.Put(string(rune('a'+i)), until(100+i), 0)
	}
	if len(m.Entries) != 8 || m.Used() != 8*(overhead+1) {
		t.Fatalf("full map: %d entries, %d bytes, want 8 and %d", len(m.Entries), m.Used(), 8*(overhead+1))
	}
	m.Put("z", 200, 101) // a and b have expired at 101
	if _, ok := m.Entries["a"]; ok {
		t.Error("expired entry a kept")
	}
	if _, ok := m.Entries["z"]; !ok || len(m.Entries) != 7 {
		t.Errorf("after making room: %d entries, z held %v, want 7 and true", len(m.Entries), ok)
	}
	m.Put("c", 300, 101) // a held key: replaced, no room made
	if m.Entries["c"] != 300 || m.Used() != 7*(overhead+1) {
		t.Errorf("replacing c: value %d, %d bytes, want 300 and %d", m.Entries["c"], m.Used(), 7*(overhead+1))
	}
	m.Put(string(make([]byte, 8*(overhead+1))), 1, 0)
	if len(m.Entries) != 7 {
		t.Errorf("an entry over the whole budget was held")
	}
	m.Remove("c")
	m.Remove("c")
	if m.Used() != 6*(overhead+1) {
		t.Errorf("after removing c twice: %d bytes, want %d", m.Used(), 6*(overhead+1))
	}
}
