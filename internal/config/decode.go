package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// decoder walks a yaml.Node tree against a Go type, setting what fits and
// recording an Error for what does not, then carries on. yaml.v3's own
// decoder stops at the first unknown key (KnownFields), takes YAML 1.1's
// `yes` for true and an unquoted 1.10 for a string; we want every problem,
// each at its line, and a file that means the same to every YAML tool.
type decoder struct {
	file string
	errs Errors
	// bad holds value nodes that failed their type check, so that semantic
	// checks skip them instead of piling a second error on the same value.
	bad map[*yaml.Node]bool
	// budget bounds the work: types are at most four levels deep, but
	// aliases can make a small file name the same big list many times.
	budget int
	// merging holds the mappings whose `<<` merges are being expanded: an
	// anchor may merge itself (`&a {<<: *a}`), which would never end.
	merging map[*yaml.Node]bool
}

const nodeBudget = 1 << 17

// mapping is one decoded YAML mapping: its node, and the key and value node
// of every key present, for the semantic checks to point at.
type mapping struct {
	node       *yaml.Node
	keys, vals map[string]*yaml.Node
}

// checker is implemented by the config types that have rules beyond their
// YAML types; check runs right after the value was decoded from m.
type checker interface {
	check(d *decoder, m mapping)
}

// valueDecoder is implemented by the config types whose YAML form is not
// their Go form: durations with days, sizes with units, platforms as `keep`
// or a list. decodeYAML reads n (aliases resolved) and reports its own
// errors through d.
type valueDecoder interface {
	decodeYAML(d *decoder, n *yaml.Node, name string)
}

// keyHinter gives a specific hint for an unknown key, when there is one
// better than "did you mean".
type keyHinter interface {
	keyHint(key string) string
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errs = append(d.errs, Error{File: d.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// badValue reports a value of the right type that is still wrong, and marks
// it so that later checks leave it alone.
func (d *decoder) badValue(n *yaml.Node, format string, args ...any) {
	d.bad[n] = true
	d.errorf(n, format, args...)
}

// typeError reports that n under name is not of the wanted kind.
func (d *decoder) typeError(n *yaml.Node, name, want, hint string) {
	d.bad[n] = true
	d.errorf(n, "%q must be %s, got %s%s", name, want, describe(n), hint)
}

// decode sets v from n. name is the key (or key[index]) that n sits under,
// as the user would look for it.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, name string) {
	if !d.spend(n) {
		return
	}
	n = resolve(n)
	if vd, ok := v.Addr().Interface().(valueDecoder); ok {
		vd.decodeYAML(d, n, name)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) && v.Type().Elem().Kind() == reflect.Struct {
			// An empty section (`prepull:` with everything commented
			// out) is absent, as for the sections that are not pointers.
			return
		}
		e := reflect.New(v.Type().Elem())
		d.decode(n, e.Elem(), name)
		if !d.bad[n] {
			v.Set(e)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			hint := ""
			if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
				// An unquoted 1.10 is the number 1.1 to editors, the
				// schema and yq; quoted, it is the tag everywhere.
				hint = fmt.Sprintf(" (quote it: %q)", n.Value)
			}
			d.typeError(n, name, "a string", hint)
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			d.typeError(n, name, "a boolean", " (use true or false)")
			return
		}
		v.SetBool(b)
	case reflect.Int:
		var i int
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
			hint := ""
			if _, err := strconv.Atoi(n.Value); err == nil && n.ShortTag() == "!!str" {
				hint = fmt.Sprintf(" (write it without quotes: %s)", n.Value)
			}
			d.typeError(n, name, "an integer", hint)
			return
		}
		v.SetInt(int64(i))
	case reflect.Slice:
		d.decodeList(n, v, name)
	case reflect.Map:
		d.decodeMap(n, v, name)
	case reflect.Struct:
		d.decodeStruct(n, v, name)
	default:
		panic("config: no decoder for " + v.Type().String())
	}
}

// spend takes one unit of work from the budget, reporting (once, at n) when
// it is gone.
func (d *decoder) spend(n *yaml.Node) bool {
	if d.budget--; d.budget < 0 {
		if d.budget == -1 {
			d.errorf(n, "too many values (is an alias repeated too often?)")
		}
		return false
	}
	return true
}

// decodeList decodes a sequence. Null is an absent list: it is what is left
// when every item of a list is commented out.
func (d *decoder) decodeList(n *yaml.Node, v reflect.Value, name string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		hint := ""
		if n.Kind == yaml.ScalarNode && v.Type().Elem().Kind() == reflect.String {
			hint = fmt.Sprintf(" (write [%q])", n.Value)
		}
		d.typeError(n, name, "a list", hint)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", name, i))
	}
	v.Set(s)
}

// decodeMap decodes a mapping with keys of the user's choosing
// (registries by host).
func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, name string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.typeError(n, name, "a mapping", "")
		return
	}
	m := reflect.MakeMap(v.Type())
	for _, kv := range d.pairs(n, name) {
		e := reflect.New(v.Type().Elem()).Elem()
		d.decode(kv.val, e, kv.key.Value)
		m.SetMapIndex(reflect.ValueOf(kv.key.Value), e)
	}
	v.Set(m)
}

// decodeStruct decodes a mapping into a struct by yaml tags, reporting
// unknown keys, then runs the struct's own checks.
func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, name string) {
	m := mapping{node: n, keys: map[string]*yaml.Node{}, vals: map[string]*yaml.Node{}}
	switch {
	case isNull(n):
		// An empty section (`git:` with everything commented out) is absent.
	case n.Kind != yaml.MappingNode:
		d.typeError(n, name, "a mapping", "")
		return
	default:
		fields := yamlFields(v.Type())
		for _, kv := range d.pairs(n, name) {
			key := kv.key.Value
			i, ok := fields[key]
			if !ok {
				d.errorf(kv.key, "unknown key %q%s", key, d.unknownHint(v, key, fields))
				d.decodeMisspelt(v, kv, fields)
				continue
			}
			m.keys[key], m.vals[key] = kv.key, resolve(kv.val)
			d.decode(kv.val, v.Field(i), key)
		}
	}
	if c, ok := v.Addr().Interface().(checker); ok {
		c.check(d, m)
	}
}

// decodeMisspelt decodes the value of a misspelt key (`polices:`) as the
// key it is closest to, and drops the result: the errors inside it are
// reported now, not one round of fixes later.
func (d *decoder) decodeMisspelt(v reflect.Value, kv pair, fields map[string]int) {
	meant := closest(kv.key.Value, slices.Sorted(maps.Keys(fields)))
	i, ok := fields[meant]
	if !ok {
		return
	}
	scratch := reflect.New(v.Type()).Elem()
	d.decode(kv.val, scratch.Field(i), meant)
}

func (d *decoder) unknownHint(v reflect.Value, key string, fields map[string]int) string {
	if h, ok := v.Addr().Interface().(keyHinter); ok {
		if hint := h.keyHint(key); hint != "" {
			return hint
		}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	return suggest(key, keys)
}

type pair struct{ key, val *yaml.Node }

// pairs lists the entries of mapping n with `<<` merges expanded as YAML
// defines them: keys written in n win over merged ones, and earlier merged
// mappings win over later ones. Keys must be strings and appear once.
func (d *decoder) pairs(n *yaml.Node, name string) []pair {
	if d.merging[n] {
		d.errorf(n, "\"<<\" merges a mapping into itself")
		return nil
	}
	d.merging[n] = true
	defer delete(d.merging, n)
	var own, merged []pair
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !d.spend(k) {
			return nil
		}
		switch {
		case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
			merged = append(merged, d.merge(val, name)...)
		case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
			d.errorf(k, "keys in %q must be strings, got %s", name, describe(resolve(k)))
		case first[k.Value] != nil:
			d.errorf(k, "duplicate key %q (first at line %d)", k.Value, first[k.Value].Line)
		default:
			first[k.Value] = k
			own = append(own, pair{k, val})
		}
	}
	for _, kv := range merged {
		if first[kv.key.Value] == nil {
			first[kv.key.Value] = kv.key
			own = append(own, kv)
		}
	}
	return own
}

// merge returns the pairs that a `<<` value brings in: one mapping or a list
// of them.
func (d *decoder) merge(val *yaml.Node, name string) []pair {
	val = resolve(val)
	var out []pair
	switch val.Kind {
	case yaml.MappingNode:
		return d.pairs(val, name)
	case yaml.SequenceNode:
		for _, item := range val.Content {
			if item = resolve(item); item.Kind != yaml.MappingNode {
				d.errorf(item, "\"<<\" can only merge mappings, got %s", describe(item))
				continue
			}
			for _, kv := range d.pairs(item, name) {
				if !containsKey(out, kv.key.Value) {
					out = append(out, kv)
				}
			}
		}
	default:
		d.errorf(val, "\"<<\" can only merge mappings, got %s", describe(val))
	}
	return out
}

func containsKey(ps []pair, key string) bool {
	for _, p := range ps {
		if p.key.Value == key {
			return true
		}
	}
	return false
}

// yamlFields maps each yaml key of struct type t to its field index.
func yamlFields(t reflect.Type) map[string]int {
	fields := map[string]int{}
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key != "" && key != "-" {
			fields[key] = i
		}
	}
	return fields
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what n is, as it would be read back to the user.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("string %q", n.Value)
		case "!!bool":
			return "boolean " + n.Value
		case "!!int":
			return "integer " + n.Value
		case "!!float":
			return "number " + n.Value
		case "!!null":
			return "null"
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	}
	return "nothing"
}
