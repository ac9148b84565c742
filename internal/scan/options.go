package scan

// DefaultMaxFileSize is the size above which a file is not read: 8 MiB.
// The biggest manifests kept in git are generated CRD bundles: Prometheus
// Operator's bundle.yaml is 4.4 MiB, Argo CD's install.yaml 1.8 MiB,
// Calico's tigera-operator.yaml 1.5 MiB. 8 MiB holds them with room to
// grow, and keeps a scan of one file well under a second and a few hundred
// MiB of memory.
const DefaultMaxFileSize = 8 << 20

// Option configures FS and Dir.
type Option func(*options)

type options struct {
	maxFileSize int64
}

// WithMaxFileSize sets the size cap in bytes (n <= 0 means the default). A
// file above it is not read beyond n+1 bytes, yields a Problem naming its
// size and the cap, and is left untouched.
func WithMaxFileSize(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxFileSize = n
		}
	}
}

func newOptions(opts []Option) options {
	o := options{maxFileSize: DefaultMaxFileSize}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
