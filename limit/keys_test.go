package limit

import (
	"strings"
	"testing"
)

func TestAppendTag(t *testing.T) {
	tests := []struct {
		domain, want string
	}{
		{"shop", "{shop}"},
		{"gw-ns/gw#default/toystore", "{gw-ns/gw#default/toystore}"},
		{"a}b", "{a%7Db}"},
		{"{a}", "{%7Ba%7D}"},
		{"50%", "{50%25}"},
		{"a|b", "{a%7Cb}"},
		{"%7D", "{%257D}"},
	}
	for _, tc := range tests {
		if got := string(AppendTag([]byte("x"), tc.domain)); got != "x"+tc.want {
			t.Errorf("AppendTag(x, %q) = %q, want %q", tc.domain, got, "x"+tc.want)
		}
	}
}

func TestAppendEntryTag(t *testing.T) {
	if got, want := string(AppendEntryTag(nil, "shop", "tenant", "acme")), "{shop|tenant|acme}"; got != want {
		t.Errorf("AppendEntryTag(shop, tenant, acme) = %q, want %q", got, want)
	}
	if got, want := string(AppendEntryTag(nil, "a}", "k|", "{v%")), "{a%7D|k%7C|%7Bv%25}"; got != want {
		t.Errorf("AppendEntryTag(a}, k|, {v%%) = %q, want %q", got, want)
	}
}

// TestTagsAreDistinct: the tags of different domains, and of different
// domains and entries, differ, and each holds one '{' and one '}' (its
// first and last bytes), so that Redis Cluster hashes exactly its content.
func TestTagsAreDistinct(t *testing.T) {
	domains := []string{"a", "a}", "a}b", "{a", "{a}", "a%7D", "a%", "a|b", "a|b|c", "}", "{", "%", "|"}
	seen := map[string]string{}
	add := func(tag, what string) {
		t.Helper()
		if strings.Count(tag, "{") != 1 || strings.Count(tag, "}") != 1 || tag[0] != '{' || tag[len(tag)-1] != '}' {
			t.Errorf("%s: tag %q does not hold exactly its content between one '{' and one '}'", what, tag)
		}
		if other, dup := seen[tag]; dup {
			t.Errorf("%s and %s share the tag %q", what, other, tag)
		}
		seen[tag] = what
	}
	for _, d := range domains {
		add(string(AppendTag(nil, d)), "domain "+d)
		for _, k := range []string{"k", "k|", "|k"} {
			for _, v := range []string{"v", "|v", "v}"} {
				add(string(AppendEntryTag(nil, d, k, v)), "entry "+d+","+k+","+v)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	if got, want := string(AppendString([]byte("k"), "alice_path")), "k10:alice_path"; got != want {
		t.Errorf("AppendString(k, alice_path) = %q, want %q", got, want)
	}
	if got, want := string(AppendString(nil, "")), "0:"; got != want {
		t.Errorf("AppendString(nil, \"\") = %q, want %q", got, want)
	}
}

func TestParseTagBy(t *testing.T) {
	for _, tb := range []TagBy{TagByDomain, TagByFirstEntry} {
		got, err := ParseTagBy(tb.String())
		if err != nil || got != tb {
			t.Errorf("ParseTagBy(%q) = %v, %v; want %v", tb.String(), got, err, tb)
		}
	}
	if _, err := ParseTagBy("tenant"); err == nil || !strings.Contains(err.Error(), "want domain or first-entry") {
		t.Errorf("ParseTagBy(tenant) error = %v, want one naming domain and first-entry", err)
	}
}
