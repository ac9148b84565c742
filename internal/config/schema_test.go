package config

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/policy"
)

// schemaPath is read by path: embed cannot reach outside the package.
const schemaPath = "../../schema/imagebot.schema.json"

type object = map[string]any

func readSchema(t *testing.T) object {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s object
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return s
}

// TestSchemaMatchesTypes holds schema/imagebot.schema.json to the Go types:
// the same keys at every level, closed objects, help text on every key, and
// the same enum values as the loader accepts.
func TestSchemaMatchesTypes(t *testing.T) {
	root := readSchema(t)
	defs, _ := root["$defs"].(object)
	deref := func(s object) object {
		if ref, ok := s["$ref"].(string); ok {
			def, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(object)
			if !ok {
				t.Fatalf("schema: dangling $ref %q", ref)
			}
			return def
		}
		return s
	}
	var walk func(where string, typ reflect.Type, s object)
	walk = func(where string, typ reflect.Type, s object) {
		s = deref(s)
		if s["additionalProperties"] != false {
			t.Errorf("schema %s: additionalProperties must be false", where)
		}
		props, _ := s["properties"].(object)
		fields := yamlFields(typ)
		goKeys, schemaKeys := slices.Sorted(maps.Keys(fields)), slices.Sorted(maps.Keys(props))
		if diff := cmp.Diff(goKeys, schemaKeys); diff != "" {
			t.Errorf("schema %s: keys differ from %s (-go +schema):\n%s", where, typ, diff)
		}
		for key, i := range fields {
			p, ok := props[key].(object)
			if !ok {
				continue
			}
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("schema %s.%s: no description", where, key)
			}
			ft := typ.Field(i).Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if reflect.PointerTo(ft).Implements(reflect.TypeFor[valueDecoder]()) {
				continue // its YAML form is not its Go form: see TestSchemaValidates
			}
			switch {
			case ft.Kind() == reflect.Struct:
				walk(where+"."+key, ft, p)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				items, _ := p["items"].(object)
				walk(where+"."+key+"[]", ft.Elem(), items)
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				values, _ := p["additionalProperties"].(object)
				walk(where+"."+key+".*", ft.Elem(), values)
			}
		}
	}
	walk("config", reflect.TypeFor[Config](), root)

	for _, e := range []struct {
		path []string
		want []string
	}{
		{[]string{"policy", "properties", "automerge", "items", "enum"}, automergeValues},
		{[]string{"git", "properties", "signedCommits", "enum"}, signedCommitsValues},
		{[]string{"policy", "properties", "updateTypes", "items", "enum"}, updateTypeValues},
		{[]string{"policy", "properties", "approval", "items", "enum"}, approvalValues},
	} {
		if diff := cmp.Diff(e.want, enumAt(defs, e.path)); diff != "" {
			t.Errorf("schema $defs.%s (-loader +schema):\n%s", strings.Join(e.path, "."), diff)
		}
	}
	if diff := cmp.Diff(approvalValues, enumAt(root, []string{"properties", "approval", "items", "enum"})); diff != "" {
		t.Errorf("schema properties.approval (-loader +schema):\n%s", diff)
	}
	// The policy keys belong to internal/policy: every value the schema
	// offers must compile, and the loader's suggestions are the same words.
	for _, f := range specFields {
		if f.words == nil {
			continue
		}
		enum := enumAt(defs, []string{"policy", "properties", f.key, "enum"})
		if diff := cmp.Diff(f.words, enum); diff != "" {
			t.Errorf("schema $defs.policy.properties.%s.enum (-loader +schema):\n%s", f.key, diff)
		}
		for _, v := range enum {
			var s policy.Spec
			f.set(&s, v)
			if err := compiles(s); err != nil {
				t.Errorf("schema offers %s: %q, which policy.New refuses: %v", f.key, v, err)
			}
		}
	}
}

// enumAt returns the strings at path in s, nil when the path is missing.
func enumAt(s object, path []string) []string {
	var v any = s
	for _, key := range path {
		o, _ := v.(object)
		v = o[key]
	}
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		str, _ := e.(string)
		out = append(out, str)
	}
	return out
}

// TestSchemaValidates runs the testdata configs through the schema as an
// editor would: the files that load must pass, and the invalid ones that a
// schema can judge (every one that is valid YAML and not only wrong in ways
// beyond a schema) must fail.
func TestSchemaValidates(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	// These files are wrong in ways a schema cannot express.
	beyondSchema := map[string]bool{
		"invalid_syntax.yaml":    true, // not YAML at all
		"invalid_documents.yaml": true, // editors check each document alone
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		base := filepath.Base(file)
		if beyondSchema[base] {
			continue
		}
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			// The validator wants what encoding/json produces.
			js, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(inst)
			if want := strings.HasPrefix(base, "valid_"); (err == nil) != want {
				t.Errorf("schema validation of %s: err = %v, want valid = %v", file, err, want)
			}
			if base == "invalid_typo_and_type.yaml" && err != nil {
				for _, s := range []string{"alow", "skip"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("schema error does not name %q:\n%v", s, err)
					}
				}
			}
		})
	}
}
