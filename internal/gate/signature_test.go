package gate_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/imagebot/imagebot/internal/gate"
)

func TestCheckSignature(t *testing.T) {
	down := errors.New("registry ghcr.io is down")
	tests := []struct {
		name    string
		err     error
		held    string
		wantErr error
	}{
		{"signed", nil, "", nil},
		{"unsigned", fmt.Errorf("%w: no sha256-abc.sig tag, no referrer", gate.ErrUnsigned), "not signed (no cosign signature tag or referrer)", nil},
		{"another key", fmt.Errorf("%w: sig-tag: signed with another key; want key SHA256:ab", gate.ErrRejected),
			"signature not accepted: sig-tag: signed with another key; want key SHA256:ab", nil},
		{"registry down", fmt.Errorf("verify: %w", down), "", down},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			held, err := gate.CheckSignature(tc.err)
			if held != tc.held || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("CheckSignature = %q, %v; want %q, %v", held, err, tc.held, tc.wantErr)
			}
		})
	}
}
