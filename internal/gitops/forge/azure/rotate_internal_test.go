package azure

import (
	"strings"
	"testing"
)

// TestRotate: the marker that ends a body goes first in the description
// and comes back to the end on reading, byte for byte; a body without one
// is stored as it is; a listed description cut at 400 characters still
// gives the whole marker.
func TestRotate(t *testing.T) {
	marker := `<!-- imagebot:v2 {"branch":"imagebot/x","moves":[{"image":"a","to":"2"}]} -->`
	body := "Moves **a** to `2`.\n\n" + strings.Repeat("Release notes. ", 60) + "\n\n" + marker + "\n"
	stored := rotate(body)
	if !strings.HasPrefix(stored, marker+"\n") || unrotate(stored) != body {
		t.Fatalf("rotate: %q; back: %q", stored[:100], unrotate(stored))
	}
	for _, plain := range []string{"no marker\n", "text\n<!-- imagebot:onboarding -->\n", marker} {
		if rotate(plain) != plain || unrotate(plain) != plain {
			t.Errorf("%q: rotated %q", plain, rotate(plain))
		}
	}
	listed := string([]rune(stored)[:listedDescription])
	if !markerFirst(listed) || !strings.HasSuffix(unrotate(listed), "notes. R\n"+marker+"\n") {
		t.Errorf("listed: %q", unrotate(listed))
	}
	if markerFirst(marker[:50]) {
		t.Error("a cut marker counts as whole")
	}
}
