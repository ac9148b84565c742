package adopt

import (
	"errors"
	"fmt"
)

// ErrTooLarge is an input or output of init beyond its limits.
var ErrTooLarge = errors.New("too large for init")

// maxDepth bounds the nesting of a Renovate config: real ones nest a few
// levels (packageRules, then a rule, then a list); the JSON5 parser
// recurses once per level, and a file of a million "[" would exhaust the
// stack.
const maxDepth = 64

// checkDepth refuses src when its objects and arrays nest deeper than
// maxDepth, naming the line where they do. It reads JSON5's strings
// (double or single quotes) and comments, so brackets in them do not
// count.
func checkDepth(name string, src []byte) error {
	depth, line := 0, 1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n':
			line++
		case c == '"' || c == '\'':
			for i++; i < len(src) && src[i] != c; i++ {
				switch src[i] {
				case '\\':
					i++
				case '\n':
					line++ // not valid JSON: hujson says so
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			line++
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			for i += 2; i+1 < len(src) && (src[i] != '*' || src[i+1] != '/'); i++ {
				if src[i] == '\n' {
					line++
				}
			}
			i++
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return fmt.Errorf("%s:%d: %w: objects and arrays nest more than %d levels deep here; a Renovate config needs a few: flatten it, then run init again", name, line, ErrTooLarge, maxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
