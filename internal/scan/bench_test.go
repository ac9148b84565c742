package scan

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// The hostile inputs of issue 9, as benchmarks: their speed is measured
// here, never asserted in a timed test. Before the fixes, on a shared
// 2-core machine: the single-line JSON took 165 s of CPU, the syntax error
// 95 s (and named the wrong line).

func BenchmarkFileSingleLineJSON5MiB(b *testing.B) {
	src := singleLineJSON(5<<20, "équipe-web")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if res := File("list.yaml", src); len(res.Refs) == 0 {
			b.Fatal("no refs")
		}
	}
}

func BenchmarkSyntaxError8MiB(b *testing.B) {
	src, line := badLine(8 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		res := File("bundle.yaml", src)
		if len(res.Problems) != 1 || res.Problems[0].Line != line {
			b.Fatalf("problems %v, want one at line %d", res.Problems, line)
		}
	}
}

// BenchmarkFileBundle8MiB is the biggest file scanned by default: a
// generated bundle of Deployments at the size cap.
func BenchmarkFileBundle8MiB(b *testing.B) {
	src := bundle(DefaultMaxFileSize)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if res := File("bundle.yaml", src); len(res.Refs) == 0 {
			b.Fatal("no refs")
		}
	}
}

// BenchmarkFS1000Dockerfiles is issue 28's workload of Dockerfiles: a
// thousand multi-stage files with ARG defaults, continuations and heredocs,
// scanned from memory.
func BenchmarkFS1000Dockerfiles(b *testing.B) {
	fsys := fstest.MapFS{}
	for i := range 1000 {
		fsys[fmt.Sprintf("svc%d/Dockerfile", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"# syntax=docker/dockerfile:1\nARG GO=1.22.%d\nFROM --platform=$BUILDPLATFORM \\\n    golang:${GO} AS build\nRUN <<EOF\nFROM x:1\nEOF\n"+
				"COPY --from=ghcr.io/acme/tools:v1.%d / /\nFROM gcr.io/distroless/static:nonroot\nCOPY --from=build /out /\n", i%10, i%7))}
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := FS(context.Background(), fsys, nil)
		if err != nil || len(res.Refs) != 3000 {
			b.Fatalf("%d refs, %v", len(res.Refs), err)
		}
	}
}

// BenchmarkTemplateManyActions: a template line of 400,000 actions, and as
// many action lines. Each action looked back to its line's start, which
// took minutes, before the line starts were tracked as the scan moves on.
func BenchmarkTemplateManyActions(b *testing.B) {
	n := 400000
	src := []byte("a: " + strings.Repeat("{{x}} ", n) + "\nimage: nginx:1.2\n" + strings.Repeat("{{ if }}\n", n) + "{{ unclosed")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if res := File("templates/x.yaml", src); len(res.Refs) != 1 {
			b.Fatalf("%d refs", len(res.Refs))
		}
	}
}
