package chartrepo

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// entryLine takes a line within a block-style entries mapping.
func (p *yamlParser) entryLine(line []byte, ind int, blank, comment bool) error {
	switch {
	case p.skip:
		if blank || comment || ind > p.ci || ind == p.ci && isDash(line[ind:]) {
			return nil // a chart nobody asked for: never decoded
		}
	case p.whole:
		if blank || ind > p.ci || comment {
			return p.wholeLine(line)
		}
	case blank:
		if p.chunk.Len() > 0 && !p.drop {
			p.chunk.WriteByte('\n') // within a block scalar, perhaps
		}
		return nil
	case comment && (p.chunk.Len() == 0 || ind <= p.si || p.drop):
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
		p.whole, p.chunkLine = true, p.line
		if err := p.wholeLine(p.keyLine); err != nil {
			return err
		}
		return p.wholeLine(line)
	case p.si < 0:
		p.si = ind
	}
	switch {
	case ind == p.si && dash:
		if err := p.startItem(); err != nil {
			return err
		}
		return p.itemDash(line)
	case ind <= p.si || p.chunk.Len() == 0:
		return p.errorf("bad indentation of an entry of chart %q", p.chart)
	}
	if p.kc == -1 {
		p.kc = ind // the first key of an item whose dash stands alone
	}
	if ind == p.kc && !comment && !dash {
		// A new key (a dash there is the list of the key before: YAML
		// lets a key's list stand at the key's own indentation).
		read, known := entryKey(line[ind:])
		p.drop = known && !read
	}
	if p.drop {
		return nil
	}
	return p.itemText(dedent(line, p.si))
}

// startItem begins an item: items are decoded in batches of about
// batchBytes, a parser per item costing more in set-up than in parsing.
func (p *yamlParser) startItem() error {
	if p.chunk.Len() >= batchBytes {
		if err := p.endItems(); err != nil {
			return err
		}
	}
	if p.chunk.Len() == 0 {
		p.chunkLine = p.line
	}
	p.itemStart, p.itemLine, p.drop = p.chunk.Len(), p.line, false
	return nil
}

// itemDash takes an item's first line, "- key: value": its key is kept
// or dropped as any other, the dash always.
func (p *yamlParser) itemDash(line []byte) error {
	after := line[p.si+1:]
	content := bytes.TrimLeft(after, " \t")
	switch {
	case len(content) == 0 || content[0] == '#':
		p.kc = -1
		return p.itemText([]byte("-"))
	case isDash(content):
		p.kc = -2 // a list in a list: not an entry, for YAML to say so
	default:
		p.kc = len(line) - len(content)
		if read, known := entryKey(content); known && !read {
			p.drop = true
			return p.itemText([]byte("-"))
		}
	}
	return p.itemText(dedent(line, p.si))
}

// itemText appends a line of the current item to the batch.
func (p *yamlParser) itemText(b []byte) error {
	if p.chunk.Len()-p.itemStart+len(b) > maxEntryBytes {
		return fmt.Errorf("%w: the entry of chart %q at line %d holds over %d KiB of the fields imagebot reads (version, created, appVersion, digest, home, sources, urls)",
			ErrNotIndex, p.chart, p.itemLine, maxEntryBytes>>10)
	}
	p.chunk.Write(b)
	p.chunk.WriteByte('\n')
	return nil
}

// wholeLine appends a line of a chart decoded whole.
func (p *yamlParser) wholeLine(line []byte) error {
	if p.chunk.Len()+len(line) >= maxWholeBytes {
		return fmt.Errorf("%w: the chart at line %d is over %d MiB in flow style, more than imagebot decodes at once (Helm writes an index in block style, which is read entry by entry)",
			ErrNotIndex, p.chunkLine, maxWholeBytes>>20)
	}
	p.chunk.Write(dedent(line, p.ci))
	p.chunk.WriteByte('\n')
	return nil
}

// startChart takes a chart's name line: "  nginx:" opens its list of
// items; "  nginx: []" has none; any other value is decoded whole. A
// chart the index does not keep is dropped whatever its value.
func (p *yamlParser) startChart(line []byte) error {
	if err := p.endChart(); err != nil {
		return err
	}
	name, value, ok := keyName(line[p.ci:])
	if !ok {
		// No key located (a flow value over several lines, a complex
		// key): the chart's block is decoded whole, and says what is
		// wrong with it if anything is.
		p.chart, p.whole, p.chunkLine = string(bytes.TrimSpace(line)), true, p.line
		return p.wholeLine(line)
	}
	p.chart = name
	p.keyLine = append(p.keyLine[:0], line...)
	p.si, p.whole, p.skip = -1, false, false
	p.idx.list(name)
	switch {
	case !p.idx.keeps(name):
		p.skip = true
	case noValue(value), emptyList(value):
	default:
		p.whole, p.chunkLine = true, p.line
		return p.wholeLine(line)
	}
	return nil
}

// endItems decodes the items in chunk.
func (p *yamlParser) endItems() error {
	if p.chunk.Len() == 0 {
		return nil
	}
	defer p.chunk.Reset()
	var items []*entry
	if err := yaml.Unmarshal(p.chunk.Bytes(), &items); err != nil {
		return fmt.Errorf("%w: the entries of chart %q from line %d: %v", ErrNotIndex, p.chart, p.chunkLine, err)
	}
	for _, e := range items {
		if err := p.idx.add(p.chart, e); err != nil {
			return err
		}
	}
	return nil
}

func (p *yamlParser) endChart() error {
	skip, whole := p.skip, p.whole
	p.skip, p.whole = false, false
	switch {
	case skip:
		p.chart = ""
		return nil
	case !whole:
		err := p.endItems()
		p.chart = ""
		return err
	}
	defer p.chunk.Reset()
	p.chart = ""
	var m map[string][]*entry
	if err := yaml.Unmarshal(p.chunk.Bytes(), &m); err != nil {
		return fmt.Errorf("%w: the chart at line %d: %v", ErrNotIndex, p.chunkLine, err)
	}
	for name, es := range m {
		p.idx.list(name)
		for _, e := range es {
			if err := p.idx.add(name, e); err != nil {
				return err
			}
		}
	}
	return nil
}
