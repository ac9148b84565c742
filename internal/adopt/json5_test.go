package adopt

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseJSON5 reads what Renovate accepts in renovate.json5, keeping the
// keys in the file's order and the line of every value.
func TestParseJSON5(t *testing.T) {
	src := "// a comment\n{\n  extends: ['config:recommended',],\n  \"prHourlyLimit\": 0x10, /* hex */\n  labels: [\"a\", 'b\\'c'],\n  nested: {x: +1.5, y: null, z: true},\n}\n"
	n, err := parseJSON5([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"extends", "prHourlyLimit", "labels", "nested"}, n.keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if v := n.get("prHourlyLimit"); v.kind != '0' || v.str != "16" || v.line != 4 {
		t.Errorf("prHourlyLimit = %+v, want the number 16 at line 4", v)
	}
	if l, _ := n.get("labels").list(); !cmp.Equal(l, []string{"a", "b'c"}) || n.get("labels").line != 5 {
		t.Errorf("labels = %q at line %d", l, n.get("labels").line)
	}
	nested := n.get("nested")
	if nested.line != 6 || nested.get("x").str != "1.5" || nested.get("y").kind != 'n' || !nested.get("z").isTrue() {
		t.Errorf("nested = %+v", nested)
	}
	if n.line != 2 {
		t.Errorf("root at line %d, want 2", n.line)
	}
}

func TestParseJSON5Errors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"{\n  a: 1,\n  b: [1 2],\n}", "3: not valid JSON5"},
		// Brackets inside strings and comments are not nesting.
		{"{a: '" + strings.Repeat("[", 100) + "' /* " + strings.Repeat("{", 100) + " */}", ""},
	} {
		_, err := parseJSON5([]byte(tc.src))
		if tc.want == "" {
			if err != nil {
				t.Errorf("parseJSON5(%.30q): %v", tc.src, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parseJSON5(%.30q) = %v, want %q...", tc.src, err, tc.want)
		}
	}
}
