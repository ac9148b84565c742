package signature_test

import (
	"bytes"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func mustManifest(t *testing.T, body []byte) *v1.Manifest {
	t.Helper()
	m, err := v1.ParseManifest(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
