package scan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDockerfile: every way a Dockerfile names an image, and what is not
// one (stages, ARGs without a default, heredoc bodies, continuations).
func TestDockerfile(t *testing.T) {
	const d = "sha256:0178a641fbb4858c5f1b48e34bdaabe0350a330a1b1149aabd498d0699ff5fb2"
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{{
		name: "from, platform, digest, stages, copy --from",
		file: "src/frontend/Dockerfile",
		src: "# syntax=docker/dockerfile:1\nARG BUILDPLATFORM=linux/amd64\n" +
			"FROM --platform=$BUILDPLATFORM golang:1.22.5-alpine@" + d + " AS builder\nRUN go build\n" +
			"from gcr.io/distroless/static:nonroot as final\nCOPY --from=builder /go/bin/app /app\n" +
			"COPY --from=ghcr.io/acme/tools:v1.2.0 /bin/tool /bin/\nCOPY --from=0 /x /y\n" +
			"FROM builder AS again\nFROM scratch\nFROM ubuntu\n",
		want: []string{
			`3 dockerfile docker.io/library/golang tag="1.22.5-alpine" digest="` + d + `"`,
			`5 dockerfile gcr.io/distroless/static tag="nonroot" digest=insert"@"`,
			`7 dockerfile ghcr.io/acme/tools tag="v1.2.0" digest=insert"@"`,
			`11 dockerfile docker.io/library/ubuntu tag=insert":" digest=insert"@"`,
			`skipped 9 dockerfile variable builder`,
		},
	}, {
		name: "arg defaults used by from",
		file: "build/Containerfile",
		src: "ARG BASE=\"docker.io/library/alpine:3.19.1\"\nARG GO_VERSION=1.22.5 NOPE\nARG NODEFAULT\n" +
			"FROM ${BASE} AS a\nFROM $BASE AS b\nFROM golang:${GO_VERSION}\nFROM ${NODEFAULT}\nFROM node:${NOPE}\nFROM ${REGISTRY}/app:${TAG:-1}\n" +
			"ARG LATE=nginx:1.25.3\nFROM ${LATE}\n",
		want: []string{
			`1 dockerfile docker.io/library/alpine tag="3.19.1" digest=insert"@"`,
			`2 dockerfile docker.io/library/golang tag="1.22.5" digest=-`,
			`skipped 7 dockerfile variable ${NODEFAULT}`,
			`skipped 8 dockerfile variable node:${NOPE}`,
			`skipped 9 dockerfile variable ${REGISTRY}/app:${TAG:-1}`,
			`skipped 11 dockerfile variable ${LATE}`,
		},
	}, {
		name: "continuations and heredocs",
		file: "app.Dockerfile",
		src: "FROM --platform=linux/amd64 \\\n    # a comment inside\n\n    python:3.12.4-slim \\\n    AS base\n" +
			"RUN <<EOF\nFROM nginx:1.0.0\nEOF\nCOPY <<-CONF /etc/x.conf\n\tFROM nginx:2.0.0\n\tCONF\n" +
			"RUN cat <<<\"FROM nginx:3.0.0\"\nFROM alpine:3.19\\\n.1\nFROM redis:7.2.4\n",
		want: []string{
			`4 dockerfile docker.io/library/python tag="3.12.4-slim" digest=insert"@"`,
			`15 dockerfile docker.io/library/redis tag="7.2.4" digest=insert"@"`,
			`problem app.Dockerfile:13:6: "alpine:3.19.1" runs over a line continuation: its bytes are not one place; left untouched`,
		},
	}, {
		name: "windows escape",
		file: "Dockerfile.windows",
		src:  "# escape=`\nFROM mcr.microsoft.com/windows/servercore:ltsc2022 `\n  AS base\nRUN dir c:\\\nFROM mcr.microsoft.com/powershell:7.4-nanoserver\n",
		want: []string{
			`2 dockerfile mcr.microsoft.com/windows/servercore tag="ltsc2022" digest=insert"@"`,
			`5 dockerfile mcr.microsoft.com/powershell tag="7.4-nanoserver" digest=insert"@"`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found(tc.file, tc.src)
			if diff := cmp.Diff(sorted(tc.want), sorted(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
	for file, want := range map[string]bool{
		"Dockerfile": true, "a/Containerfile": true, "x.Dockerfile": true, "Dockerfile.dev": true,
		"Dockerfile.dockerignore": false, "dockerfile.md": false, "Dockerfiles/readme.yaml": false,
	} {
		if isDockerfile(file) != want {
			t.Errorf("isDockerfile(%q) = %v, want %v", file, !want, want)
		}
	}
}
