package scan

import (
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
)

// FuzzCheckTag: checkTag accepts exactly the tags name.NewTag accepts.
func FuzzCheckTag(f *testing.F) {
	for _, s := range []string{"1.0", "v1.2.3-alpine", "", "a/b", "a:b", "a@b", ".x", "-x", "é", "x y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		_, err := name.NewTag("example.com/x:" + tag)
		if got := checkTag(tag) == nil; got != (err == nil) {
			t.Errorf("checkTag(%q) ok=%v, name.NewTag ok=%v (%v)", tag, got, err == nil, err)
		}
	})
}
