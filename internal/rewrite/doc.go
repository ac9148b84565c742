// Package rewrite carries a plan out on files: it splices the new tag and
// digest text into the original bytes at the spans scan found.
//
// It never re-serializes YAML, so comments, quotes, indentation, key order,
// CRLF line ends, a BOM, tabs, trailing spaces and document markers stay as
// they were: every byte outside an edited span is the same afterwards. It
// checks that each span still holds the text scan saw and that the result
// still parses, and otherwise leaves the file alone. It knows nothing of git.
package rewrite
