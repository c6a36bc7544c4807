package button

import "testing"

func TestTruncate(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "abcd": "abc…", "ééé": "é…", "": ""} {
		if got := truncate(in, 3); got != want {
			t.Errorf("truncate(%q) = %q, want %q", in, got, want)
		}
	}
}
