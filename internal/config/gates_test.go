package config

import "testing"

// TestIdentityRegexp checks that a keyless identity must match the whole
// certificate identity: unanchored, "https://github.com/acme/" would
// accept a signer whose identity only contains it.
func TestIdentityRegexp(t *testing.T) {
	s := Signature{Identity: `https://github.com/acme/.+`, Issuer: "https://token.actions.githubusercontent.com"}
	re, err := s.IdentityRegexp()
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{
		"https://github.com/acme/app/.github/workflows/release.yml@refs/tags/v1": true,
		"https://evil.example/?https://github.com/acme/x":                        false,
		"https://github.com/acme/":                                               false,
		"xhttps://github.com/acme/app":                                           false,
	} {
		if got := re.MatchString(id); got != want {
			t.Errorf("identity %q: match = %v, want %v", id, got, want)
		}
	}
	// An alternation stays inside the anchors.
	alt := Signature{Identity: `a@acme.example|b@acme.example`}
	if re, _ := alt.IdentityRegexp(); re.MatchString("a@acme.example.evil") || !re.MatchString("b@acme.example") {
		t.Errorf("alternation escapes the anchors: %s", re)
	}
	if re, err := (&Signature{Key: "k.pub"}).IdentityRegexp(); re != nil || err != nil {
		t.Errorf("key signature has an identity regexp: %v, %v", re, err)
	}
}

func TestPlatforms(t *testing.T) {
	tests := []struct {
		yaml string
		want *Platforms
	}{
		{"keep", &Platforms{Keep: true}},
		{"[linux/amd64, linux/arm64/v8, windows/amd64, linux/arm/v7, linux/riscv64]",
			&Platforms{List: []string{"linux/amd64", "linux/arm64/v8", "windows/amd64", "linux/arm/v7", "linux/riscv64"}}},
		{"[]", &Platforms{List: []string{}}},
		{"", nil}, // null: absent, as an empty list key is
	}
	for _, tc := range tests {
		c, err := Parse("f.yaml", []byte("policies:\n- match: a.io/x\n  platforms: "+tc.yaml+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		got := c.Policies[0].Platforms
		if (got == nil) != (tc.want == nil) || got != nil && (got.Keep != tc.want.Keep || len(got.List) != len(tc.want.List)) {
			t.Errorf("%s: platforms = %+v, want %+v", tc.yaml, got, tc.want)
		}
	}
}
