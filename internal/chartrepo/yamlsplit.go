package chartrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// yamlParser cuts a block-style index into items as it reads it (see
// parse.go), and drops undecoded what the plan does not need: top-level
// keys other than apiVersion and entries, the charts the index keeps not
// (index.only), and an entry's fields that entry does not hold. A YAML
// error in what is dropped is therefore none of imagebot's business.
type yamlParser struct {
	idx     *index
	line    int
	started bool // a line of content was seen (a later "---" ends the document)

	section    section
	rest       bytes.Buffer // a top-level key decoded whole (secWhole)
	restLine   int
	apiVersion string

	ci        int // indentation of the chart names, -1 until known
	chart     string
	skip      bool   // the chart is not kept: its lines are dropped
	keyLine   []byte // the chart's name line, for a chart decoded whole
	si        int    // indentation of the chart's items, -1 until known
	whole     bool   // the chart's block is decoded whole, not item by item
	chunk     bytes.Buffer
	chunkLine int

	kc        int  // column of the current item's keys: -1 until known, -2 for an item kept whole
	drop      bool // the lines of the item's current key are dropped
	itemStart int  // where the current item starts in chunk
	itemLine  int
}

// section is what the lines of the current top-level key are for.
type section int

const (
	secNone    section = iota // before any key
	secSkip                   // a key the index does not need: dropped
	secWhole                  // apiVersion, entries in flow style, or what no key was located in: decoded whole
	secEntries                // entries in block style: chart by chart
)

// Bounds on what is decoded at once, whatever the index's size. YAML's
// tree of a document takes some ten to twenty times the document's
// bytes, so an index written as Helm writes it costs batchBytes at a
// time; other layouts are decoded whole up to maxWholeBytes (Helm never
// writes them: a chart or entries in flow style, an indented document);
// one entry, of the fields kept, up to maxEntryBytes.
const (
	batchBytes    = 64 << 10
	maxWholeBytes = 2 << 20
	maxEntryBytes = 256 << 10
)

func (p *yamlParser) run(br *bufio.Reader) error {
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than what is ever decoded at once is only
			// ever dropped or refused: its start says which.
			if len(long) < maxWholeBytes {
				long = append(long, b...)
			}
			continue
		}
		if long != nil {
			b = append(long, b...)
			long = nil
		}
		if len(b) > 0 {
			p.line++
			line := bytes.TrimRight(b, "\r\n")
			done, herr := p.handle(line)
			if herr != nil {
				return herr
			}
			if done {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return p.finish()
}

// handle takes one line; done says the document ended.
func (p *yamlParser) handle(line []byte) (done bool, err error) {
	ind := indentOf(line)
	content := line[ind:]
	blank := len(bytes.TrimSpace(content)) == 0
	comment := !blank && content[0] == '#'
	if ind == 0 && (marker(content, "---") || marker(content, "...")) {
		if p.started || content[0] == '.' {
			return true, nil // a second document is not the index's
		}
		return false, nil
	}
	if ind == 0 && !blank && !comment {
		p.started = true
		if err := p.endSection(); err != nil {
			return false, err
		}
		key, value, ok := keyName(content)
		switch {
		case ok && key == "entries" && noValue(value):
			p.section, p.ci = secEntries, -1
			return false, nil
		case ok && key != "entries" && key != "apiVersion":
			p.section = secSkip
			return false, nil
		}
		p.section, p.restLine = secWhole, p.line
	}
	if p.section == secNone && !blank && !comment {
		p.started = true
		p.section, p.restLine = secWhole, p.line // an indented document
	}
	switch p.section {
	case secWhole:
		if p.rest.Len()+len(line) >= maxWholeBytes {
			return false, fmt.Errorf("%w: the top-level value from line %d is over %d MiB, more than imagebot decodes at once (Helm writes an index's entries in block style, which is read entry by entry)",
				ErrNotIndex, p.restLine, maxWholeBytes>>20)
		}
		p.rest.Write(line)
		p.rest.WriteByte('\n')
	case secEntries:
		return false, p.entryLine(line, ind, blank, comment)
	}
	return false, nil
}

// endSection decodes the top-level key that ends.
func (p *yamlParser) endSection() error {
	s := p.section
	p.section = secNone
	switch s {
	case secEntries:
		return p.endChart()
	case secWhole:
		defer p.rest.Reset()
		var r rest
		if err := yaml.Unmarshal(p.rest.Bytes(), &r); err != nil {
			return fmt.Errorf("%w: the top-level value from line %d: %v", ErrNotIndex, p.restLine, err)
		}
		if r.APIVersion != "" {
			p.apiVersion = r.APIVersion
		}
		for name, es := range r.Entries {
			p.idx.list(name)
			for _, e := range es {
				if err := p.idx.add(name, e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// finish ends the document.
func (p *yamlParser) finish() error {
	if err := p.endSection(); err != nil {
		return err
	}
	if p.apiVersion == "" {
		return fmt.Errorf("%w: it has no apiVersion", ErrNotIndex)
	}
	p.idx.sort()
	p.idx.sources = nil
	return nil
}

func (p *yamlParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrNotIndex, p.line, fmt.Sprintf(format, args...))
}

func indentOf(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

// dedent removes n columns of indentation (fewer from a shorter line,
// which can only be blank here).
func dedent(line []byte, n int) []byte {
	return line[min(n, indentOf(line)):]
}

func isDash(content []byte) bool {
	return len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ' || content[1] == '\t')
}

// marker tells a document marker line ("---", "...").
func marker(content []byte, m string) bool {
	rest, ok := bytes.CutPrefix(content, []byte(m))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t')
}
