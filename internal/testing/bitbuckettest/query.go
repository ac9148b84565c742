package bitbuckettest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// parseQuery reads the subset of Bitbucket's query language
// (developer.atlassian.com/cloud/bitbucket/rest/intro/#filtering) the
// lifecycle needs: terms `field op "value"` joined by AND, where field is
// a dotted path into the answer's JSON (source.branch.name, author.uuid),
// op is =, !=, ~ (contains), !~, >, >=, <, <= (dates and strings), and a
// value is a quoted string. Anything else (OR, parentheses) is a 400 here,
// so that a driver never relies on what the fake does not check.
func parseQuery(q string) (func(map[string]any) bool, error) {
	if strings.TrimSpace(q) == "" {
		return func(map[string]any) bool { return true }, nil
	}
	type term struct{ field, op, value string }
	var terms []term
	for _, part := range strings.Split(q, " AND ") {
		part = strings.TrimSpace(part)
		field, rest, ok := strings.Cut(part, " ")
		if !ok {
			return nil, fmt.Errorf("invalid query: %q", part)
		}
		op, value, ok := strings.Cut(strings.TrimSpace(rest), " ")
		value = strings.TrimSpace(value)
		if !ok || len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' ||
			strings.Contains(strings.ReplaceAll(value[1:len(value)-1], `\"`, ""), `"`) ||
			!slices.Contains([]string{"=", "!=", "~", "!~", ">", ">=", "<", "<="}, op) || strings.ContainsAny(field, "()") {
			return nil, fmt.Errorf("invalid query: %q", part)
		}
		terms = append(terms, term{field, op, strings.ReplaceAll(value[1:len(value)-1], `\"`, `"`)})
	}
	return func(obj map[string]any) bool {
		for _, t := range terms {
			got, _ := lookup(obj, t.field).(string)
			if !compare(got, t.op, t.value) {
				return false
			}
		}
		return true
	}, nil
}

func lookup(obj map[string]any, field string) any {
	var v any = obj
	for _, k := range strings.Split(field, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func compare(got, op, want string) bool {
	switch op {
	case "=":
		return got == want
	case "!=":
		return got != want
	case "~":
		return strings.Contains(strings.ToLower(got), strings.ToLower(want))
	case "!~":
		return !strings.Contains(strings.ToLower(got), strings.ToLower(want))
	}
	c := strings.Compare(got, want)
	if g, err := time.Parse(time.RFC3339Nano, got); err == nil {
		if w, err := time.Parse(time.RFC3339Nano, want); err == nil {
			c = g.Compare(w)
		}
	}
	switch op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	}
	return c <= 0
}
