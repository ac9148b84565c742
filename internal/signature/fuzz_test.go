package signature

import (
	"testing"
)

// FuzzClassicBundle feeds registry-controlled bytes (a .sig layer's payload
// and annotations) to what reads them: they may be rejected, never crash.
func FuzzClassicBundle(f *testing.F) {
	f.Add([]byte(`{"critical":{"identity":{"docker-reference":"r"},"image":{"docker-manifest-digest":"sha256:00"},"type":"cosign container image signature"},"optional":null}`),
		"MEUCIQ==", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		`{"SignedEntryTimestamp":"MEUC","Payload":{"body":"e30=","integratedTime":1,"logIndex":2,"logID":"00"}}`,
		`{"SignedRFC3161Timestamp":"MIIB"}`)
	f.Add([]byte(`{}`), "", "", `{"Payload":{"body":"eyJraW5kIjoiaGFzaGVkcmVrb3JkIiwiYXBpVmVyc2lvbiI6IjAuMC4xIn0="}}`, "")
	f.Fuzz(func(t *testing.T, payload []byte, sig, cert, rekor, tsa string) {
		_, _ = signedDigest(payload)
		ann := map[string]string{}
		for k, v := range map[string]string{SignatureAnnotation: sig, CertificateAnnotation: cert, BundleAnnotation: rekor, annRFC3161: tsa} {
			if v != "" {
				ann[k] = v
			}
		}
		for _, withLog := range []bool{false, true} {
			b, err := classicBundle(payload, ann, withLog)
			if err == nil {
				// What sigstore-go will be asked for must be answerable.
				_, _ = b.VerificationContent()
				_, _ = b.SignatureContent()
				_, _ = b.TlogEntries()
				_ = signedDigests(b)
			}
		}
	})
}
