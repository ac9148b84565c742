package gate_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/gate"
)

func TestCheckPlatforms(t *testing.T) {
	multi := []string{"linux/amd64", "linux/arm64"}
	tests := []struct {
		name       string
		have, want []string
		keep       bool
		held       string
	}{
		{"keeps every platform", []string{"linux/amd64", "linux/arm64/v8", "linux/s390x"}, multi, true, ""},
		{"drops arm64", []string{"linux/amd64"}, multi, true, "no linux/arm64 (current has linux/amd64, linux/arm64)"},
		{"single against multi", []string{"linux/amd64"}, []string{"linux/amd64", "linux/arm64/v8"}, true, "no linux/arm64 (current has linux/amd64, linux/arm64)"},
		{"list", []string{"linux/amd64", "linux/arm/v7"}, []string{"linux/arm/v7"}, false, ""},
		{"list missing two", []string{"windows/amd64"}, []string{"linux/amd64", "linux/arm/v7"}, false, "no linux/amd64, linux/arm/v7 (policy asks for linux/amd64, linux/arm/v7)"},
		{"variant matters for arm", []string{"linux/arm/v6"}, []string{"linux/arm/v7"}, false, "no linux/arm/v7 (policy asks for linux/arm/v7)"},
		{"case", []string{"Linux/AMD64"}, []string{"linux/amd64"}, false, ""},
		{"nothing wanted", nil, nil, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gate.CheckPlatforms(tc.have, tc.want, tc.keep); got != tc.held {
				t.Errorf("CheckPlatforms = %q, want %q", got, tc.held)
			}
		})
	}
}
