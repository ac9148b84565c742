package docs

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// referenceSections maps each heading of docs/configuration.md that holds a
// table of keys to the object of schema/imagebot.schema.json it documents:
// "" is the top level, any other name an entry of $defs.
var referenceSections = map[string]string{
	"Top-level keys": "",
	"Registries":     "registry",
	"Policies":       "policy",
	"Groups":         "group",
	"Environments":   "environment",
	"Pre-pull":       "prepull",
	"Clusters":       "cluster",
}

// TestConfigurationReference holds docs/configuration.md to the JSON Schema
// (which internal/config's TestSchemaMatchesTypes holds to the loader): each
// table of keys names exactly the keys of its object. An object that has a
// section of its own is one row (`prepull`); one that has not is spelled out
// with dots (`git.author.name`, `signature.key`).
func TestConfigurationReference(t *testing.T) {
	schema := readSchema(t)
	documented := documentedKeys(t, readPage(t, "docs/configuration.md"))
	for heading, def := range referenceSections {
		object := schema.root
		if def != "" {
			object = schema.defs[def]
			if object == nil {
				t.Errorf("schema has no $defs.%s for the section %q", def, heading)
				continue
			}
		}
		want := schema.keys(object, "")
		got, ok := documented[heading]
		if !ok {
			t.Errorf("docs/configuration.md has no table of keys under %q", heading)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("docs/configuration.md, %q: the keys differ from %s (-schema +docs):\n%s", heading, schema.name(def), diff)
		}
	}
	for heading := range documented {
		if _, ok := referenceSections[heading]; !ok {
			t.Errorf("docs/configuration.md: a table of keys under %q, which no schema object is tied to: add it to referenceSections", heading)
		}
	}
}

type schemaDoc struct {
	root map[string]any
	defs map[string]map[string]any
}

func readSchema(t *testing.T) schemaDoc {
	t.Helper()
	const path = "schema/imagebot.schema.json"
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	var r map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return schemaDoc{root: r, defs: s.Defs}
}

func (s schemaDoc) name(def string) string {
	if def == "" {
		return "the schema's top level"
	}
	return "$defs." + def
}

// keys lists the keys of object as the reference writes them, sorted.
func (s schemaDoc) keys(object map[string]any, prefix string) []string {
	props, _ := object["properties"].(map[string]any)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[k].(map[string]any)
		def := ""
		if ref, ok := p["$ref"].(string); ok {
			def = strings.TrimPrefix(ref, "#/$defs/")
			p = s.defs[def]
		}
		_, nested := p["properties"]
		if nested && !slices.Contains(slices.Collect(maps.Values(referenceSections)), def) {
			out = append(out, s.keys(p, prefix+k+".")...)
			continue
		}
		out = append(out, prefix+k)
	}
	slices.Sort(out)
	return out
}

// documentedKeys returns, for each heading of the page, the first column of
// the tables under it whose first column is "key", sorted.
func documentedKeys(t *testing.T, p *page) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	heading := ""
	for n := p.doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			heading = plain(n, p.source)
		case *extast.Table:
			header, ok := n.FirstChild().(*extast.TableHeader)
			if !ok || strings.TrimSpace(plain(header.FirstChild(), p.source)) != "key" {
				continue
			}
			for row := header.NextSibling(); row != nil; row = row.NextSibling() {
				key := strings.TrimSpace(plain(row.FirstChild(), p.source))
				if key == "" {
					t.Errorf("%s:%d: a row of keys with no key", p.path, p.line(row))
					continue
				}
				out[heading] = append(out[heading], key)
			}
		}
	}
	for _, keys := range out {
		slices.Sort(keys)
	}
	return out
}
