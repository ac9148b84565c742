package registry

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/imagebot/imagebot/internal/secret"
)

// An error answer's body reaches messages (go-containerregistry quotes it
// when it is not the distribution spec's JSON): whatever a registry, or
// whatever answers on its address, sends is cut to a readable line.
const (
	errBodyRead = 64 << 10 // read of an error body, at most
	errTextMax  = 200      // bytes of one message kept
	errCodeMax  = 64       // bytes of an error code kept
)

// sanitizeError replaces the body of an error answer (4xx, 5xx) to req
// with a short, printable one, without req's credentials or anything
// shaped like one (an error page may quote the request): the spec's
// {"errors": [...]} with each code and message cut and details dropped,
// or else the start of the text. done is called once the original body is
// read and closed.
func sanitizeError(resp *http.Response, req *http.Request, done func()) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, errBodyRead))
	resp.Body.Close()
	done()
	out := sanitizedBody(secret.ScrubBody(b, secret.Of(req)...))
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Del("Content-Length")
}

func sanitizedBody(b []byte) []byte {
	var spec struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(b, &spec) == nil && len(spec.Errors) > 0 {
		if len(spec.Errors) > 5 {
			spec.Errors = spec.Errors[:5]
		}
		for i := range spec.Errors {
			spec.Errors[i].Code = cutText(spec.Errors[i].Code, errCodeMax)
			spec.Errors[i].Message = cutText(spec.Errors[i].Message, errTextMax)
		}
		out, _ := json.Marshal(spec)
		return out
	}
	return []byte(cutText(string(b), errTextMax))
}

// cutText keeps printable characters, one space for any run of others,
// and at most max bytes, marking a cut with "…".
func cutText(s string, max int) string {
	var sb strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		if sb.Len()+utf8.RuneLen(r) > max {
			return sb.String() + "…"
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
