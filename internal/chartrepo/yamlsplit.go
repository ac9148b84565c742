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
// parse.go). Lines that are not entries go to rest, which keeps a blank
// line for every line it does not hold, so that YAML's errors in it name
// the document's own lines.
type yamlParser struct {
	idx     *index
	line    int
	started bool // a line of content was seen (a later "---" ends the document)
	rest    bytes.Buffer

	inEntries bool // within a block-style "entries:" mapping
	ci        int  // indentation of the chart names, -1 until known
	chart     string
	keyLine   []byte // the chart's name line, for a chart decoded whole
	si        int    // indentation of the chart's items, -1 until known
	whole     bool   // the chart's block is decoded whole, not item by item
	chunk     bytes.Buffer
	chunkLine int
}

func (p *yamlParser) run(br *bufio.Reader) error {
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, b...)
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
		p.rest.WriteByte('\n')
		return false, nil
	}
	if ind == 0 && !blank && !comment {
		p.started = true
		if err := p.endEntries(); err != nil {
			return false, err
		}
		if isEntriesKey(content) {
			p.inEntries, p.ci = true, -1
			p.rest.WriteByte('\n')
			return false, nil
		}
	}
	if !p.inEntries {
		p.rest.Write(line)
		p.rest.WriteByte('\n')
		return false, nil
	}
	p.rest.WriteByte('\n')
	return false, p.entryLine(line, ind, blank, comment)
}

// entryLine takes a line within a block-style entries mapping.
func (p *yamlParser) entryLine(line []byte, ind int, blank, comment bool) error {
	switch {
	case p.whole:
		if blank || ind > p.ci || comment {
			p.chunk.Write(dedent(line, p.ci))
			p.chunk.WriteByte('\n')
			return nil
		}
	case blank:
		if p.chunk.Len() > 0 {
			p.chunk.WriteByte('\n')
		}
		return nil
	case comment && (p.chunk.Len() == 0 || ind <= p.si):
		return nil // a comment between items; deeper ones may be in a block scalar
	}
	if p.ci < 0 {
		p.ci = ind
	}
	dash := isDash(line[ind:])
	switch {
	case ind < p.ci:
		return p.errorf("bad indentation of a chart in entries")
	case ind == p.ci && !dash:
		return p.startChart(line)
	case p.chart == "":
		return p.errorf("an entry before its chart's name")
	case p.si < 0 && !dash:
		// Not a list of items, yet deeper than the chart's name: decode
		// the chart's block whole.
		p.whole = true
		p.chunk.Write(dedent(p.keyLine, p.ci))
		p.chunk.WriteByte('\n')
		p.chunk.Write(dedent(line, p.ci))
		p.chunk.WriteByte('\n')
		return nil
	case p.si < 0:
		p.si = ind
	}
	switch {
	case ind == p.si && dash:
		// Items are decoded in batches of about batchBytes: a parser per
		// item would cost more in set-up than in parsing.
		if p.chunk.Len() >= batchBytes {
			if err := p.endItem(); err != nil {
				return err
			}
		}
		if p.chunk.Len() == 0 {
			p.chunkLine = p.line
		}
	case ind <= p.si || p.chunk.Len() == 0:
		return p.errorf("bad indentation of an entry of chart %q", p.chart)
	}
	p.chunk.Write(dedent(line, p.si))
	p.chunk.WriteByte('\n')
	return nil
}

// startChart takes a chart's name line: "  nginx:" opens its list of
// items; "  nginx: []" has none; any other value is decoded whole.
func (p *yamlParser) startChart(line []byte) error {
	if err := p.endChart(); err != nil {
		return err
	}
	var kv map[string]yaml.Node
	if err := yaml.Unmarshal(bytes.TrimSpace(line), &kv); err != nil || len(kv) != 1 {
		// A value in flow style over several lines: the chart's block is
		// decoded whole, and says what is wrong with it if anything is.
		p.chart, p.whole, p.chunkLine = string(bytes.TrimSpace(line)), true, p.line
		p.chunk.Write(dedent(line, p.ci))
		p.chunk.WriteByte('\n')
		return nil
	}
	for name, v := range kv {
		p.chart = name
		p.keyLine = append(p.keyLine[:0], line...)
		p.si, p.whole = -1, false
		if _, ok := p.idx.charts[name]; !ok {
			p.idx.charts[name] = nil
		}
		switch {
		case v.Kind == 0 || v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		default:
			p.whole = true
			p.chunkLine = p.line
			p.chunk.Write(dedent(line, p.ci))
			p.chunk.WriteByte('\n')
		}
	}
	return nil
}

// batchBytes is about how much of a chart's items is decoded at once: the
// YAML tree of 64 KiB is some hundreds of KiB, whatever the index's size.
const batchBytes = 64 << 10

// endItem decodes the items in chunk.
func (p *yamlParser) endItem() error {
	if p.chunk.Len() == 0 {
		return nil
	}
	defer p.chunk.Reset()
	var items []*entry
	if err := yaml.Unmarshal(p.chunk.Bytes(), &items); err != nil {
		return fmt.Errorf("%w: the entries of chart %q from line %d: %v", ErrNotIndex, p.chart, p.chunkLine, err)
	}
	for _, e := range items {
		p.idx.add(p.chart, e)
	}
	return nil
}

func (p *yamlParser) endChart() error {
	if !p.whole {
		err := p.endItem()
		p.chart = ""
		return err
	}
	defer p.chunk.Reset()
	p.whole, p.chart = false, ""
	var m map[string][]*entry
	if err := yaml.Unmarshal(p.chunk.Bytes(), &m); err != nil {
		return fmt.Errorf("%w: the chart at line %d: %v", ErrNotIndex, p.chunkLine, err)
	}
	for name, es := range m {
		for _, e := range es {
			p.idx.add(name, e)
		}
	}
	return nil
}

func (p *yamlParser) endEntries() error {
	if !p.inEntries {
		return nil
	}
	p.inEntries = false
	return p.endChart()
}

// finish decodes rest: apiVersion, and entries not in block style.
func (p *yamlParser) finish() error {
	if err := p.endEntries(); err != nil {
		return err
	}
	var r rest
	if err := yaml.Unmarshal(p.rest.Bytes(), &r); err != nil {
		return fmt.Errorf("%w: %v", ErrNotIndex, err)
	}
	for name, es := range r.Entries {
		for _, e := range es {
			p.idx.add(name, e)
		}
	}
	if r.APIVersion == "" {
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

// isEntriesKey tells the line that opens a block-style entries mapping:
// the key alone, perhaps quoted, perhaps with a comment.
func isEntriesKey(content []byte) bool {
	for _, k := range []string{"entries:", `"entries":`, "'entries':"} {
		if rest, ok := bytes.CutPrefix(content, []byte(k)); ok {
			rest = bytes.TrimSpace(rest)
			return len(rest) == 0 || rest[0] == '#'
		}
	}
	return false
}
