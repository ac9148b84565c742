package job

import (
	"errors"
	"fmt"
	"testing"
)

// TestErrors: an explained error prints as its message and keeps its
// cause; a partial failure prints what failed, or a generic sentence when
// the report says it.
func TestErrors(t *testing.T) {
	cause := errors.New("401")
	if e := explain(cause, "GitHub rejected the token"); e.Error() != "GitHub rejected the token" || !errors.Is(e, cause) {
		t.Errorf("explain: %q, cause kept %v", e, errors.Is(e, cause))
	}
	var p *PartialError
	if e := fmt.Errorf("run: %w", &PartialError{cause}); !errors.As(e, &p) || p.Err != cause || e.Error() != "run: 401" {
		t.Errorf("partial: %v", e)
	}
	if e := partial(); e.Error() != "some lookups or pull requests failed" {
		t.Errorf("partial without an error: %q", e)
	}
}
