package secret

import (
	"bytes"
	"encoding/json"
)

// ScrubBody is Scrub for a response body: the text as it is, and, when it
// is JSON, every string in it as decoded, so that a credential quoted with
// escapes ("\u0067hs_…", "\/") is caught as surely as a plain one.
func ScrubBody(b []byte, secrets ...string) []byte {
	out := []byte(Scrub(string(b), secrets...))
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return out
	}
	changed := false
	v = scrubJSON(v, secrets, &changed)
	if !changed {
		return out
	}
	re, err := json.Marshal(v)
	if err != nil {
		return out
	}
	return re
}

func scrubJSON(v any, secrets []string, changed *bool) any {
	switch x := v.(type) {
	case string:
		if s := Scrub(x, secrets...); s != x {
			*changed = true
			return s
		}
	case []any:
		for i := range x {
			x[i] = scrubJSON(x[i], secrets, changed)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = scrubJSON(e, secrets, changed)
		}
	}
	return v
}
