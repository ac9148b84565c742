package chartrepo

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// Locating keys without decoding their values is what lets the parser
// skip what nobody asked for: the top-level keys other than apiVersion and
// entries, the charts the plan does not name, and the fields of an entry
// imagebot does not read (description, maintainers, annotations, ...).
// Only a key is located here, on the line it starts: a plain key up to
// its ": ", or a quoted one up to its closing quote. A line that holds no
// key so spelled (a complex key, an anchor, a flow collection) is never
// skipped: it is decoded by YAML.

// splitKey cuts a line's content (from its first non-space byte) into the
// key as written and the value after the colon; ok is false when the line
// does not start with a key spelled plainly or in quotes.
func splitKey(content []byte) (key, value []byte, ok bool) {
	if len(content) == 0 {
		return nil, nil, false
	}
	end := -1 // the index of the colon
	switch content[0] {
	case '"', '\'':
		i := closingQuote(content)
		if i < 0 {
			return nil, nil, false
		}
		j := i + 1
		for j < len(content) && (content[j] == ' ' || content[j] == '\t') {
			j++
		}
		if j >= len(content) || content[j] != ':' {
			return nil, nil, false
		}
		end = j
	case '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ',', '-', ':':
		return nil, nil, false // an indicator: not a plain key (a "-x" name is rare enough to decode)
	default:
		for i := 0; i < len(content); i++ {
			if content[i] == '#' && i > 0 && (content[i-1] == ' ' || content[i-1] == '\t') {
				return nil, nil, false // a comment before any colon
			}
			if content[i] == ':' && (i+1 == len(content) || content[i+1] == ' ' || content[i+1] == '\t') {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, nil, false
		}
	}
	if end+1 < len(content) && content[end+1] != ' ' && content[end+1] != '\t' {
		return nil, nil, false
	}
	return bytes.TrimRight(content[:end], " \t"), content[end+1:], true
}

// closingQuote is the index of the quote that closes the quoted scalar
// content starts with, on this line; -1 when it does not close there.
func closingQuote(content []byte) int {
	q := content[0]
	for i := 1; i < len(content); i++ {
		switch c := content[i]; {
		case q == '"' && c == '\\':
			i++ // an escaped character
		case c == q && q == '\'' && i+1 < len(content) && content[i+1] == '\'':
			i++ // '' is a quote
		case c == q:
			return i
		}
	}
	return -1
}

// keyName is the key a line starts with, read from the key's bytes
// alone (its value is not decoded): a plain key or one quoted without
// escapes is its text, any other is read by YAML. ok is false when the
// line holds no key splitKey can locate, or one that is not a string.
func keyName(content []byte) (name string, value []byte, ok bool) {
	k, v, ok := splitKey(content)
	if !ok {
		return "", nil, false
	}
	if t, ok := keyText(k); ok {
		return string(t), v, true
	}
	var m map[string]yaml.Node
	if err := yaml.Unmarshal(append(k[:len(k):len(k)], ':'), &m); err != nil || len(m) != 1 {
		return "", nil, false
	}
	for name := range m {
		return name, v, true
	}
	return "", nil, false
}

// keyText is the text of a key that YAML reads as written: plain, or
// quoted without an escape.
func keyText(k []byte) ([]byte, bool) {
	if len(k) == 0 {
		return nil, false
	}
	if k[0] != '"' && k[0] != '\'' {
		return k, true
	}
	if len(k) < 2 {
		return nil, false
	}
	inner := k[1 : len(k)-1]
	if bytes.ContainsAny(inner, `\'"`) {
		return nil, false
	}
	return inner, true
}

// noValue tells a value that is empty on its key's line (a block below,
// or nothing), perhaps with a comment.
func noValue(value []byte) bool {
	v := bytes.TrimSpace(value)
	return len(v) == 0 || v[0] == '#'
}

// emptyList tells a value that is an empty list ("[]") or null.
func emptyList(value []byte) bool {
	v := bytes.TrimSpace(value)
	if i := bytes.Index(v, []byte(" #")); i >= 0 {
		v = bytes.TrimSpace(v[:i])
	}
	switch string(v) {
	case "[]", "null", "~", "Null", "NULL":
		return true
	}
	return false
}

// entryFields are the keys of an index entry that entry decodes: the
// lines of any other key are dropped before decoding.
var entryFields = map[string]bool{
	"version": true, "created": true, "deprecated": true, "appVersion": true,
	"digest": true, "home": true, "sources": true, "urls": true,
}

// entryKey classifies the key an entry's line starts with: read says
// entry decodes it, known that the key could be located at all (an
// unknown line is kept, for YAML to read). Keys are compared as written,
// plainly or in quotes without escapes.
func entryKey(content []byte) (read, known bool) {
	k, _, ok := splitKey(content)
	if !ok {
		return false, false
	}
	t, ok := keyText(k)
	if !ok {
		return false, false // an escape: let YAML read it
	}
	return entryFields[string(t)], true
}
