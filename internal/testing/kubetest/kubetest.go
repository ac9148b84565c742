package kubetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// EnvBin names the directory that holds kube-apiserver and etcd.
const EnvBin = "IMAGEBOT_KUBE_BIN"

// User is an identity the API server accepts by token: Name as RBAC sees
// it (a service account is "system:serviceaccount:NS:NAME"), and Groups.
type User struct {
	Name   string
	Groups []string
}

// Server is a running kube-apiserver.
type Server struct {
	URL        string
	Kubeconfig string // a kubeconfig with a context per user ("admin" and each User's key)
	Admin      *kubernetes.Clientset
	AdminREST  *rest.Config
	caPEM      []byte
}

// Start runs etcd and kube-apiserver for the test, or skips it when
// IMAGEBOT_KUBE_BIN is not set. users are keyed by the context name the
// kubeconfig gives each.
func Start(t *testing.T, users map[string]User) *Server {
	t.Helper()
	bin := os.Getenv(EnvBin)
	if bin == "" {
		t.Skipf("%s is not set: run make test-kube (make kube builds kube-apiserver and etcd)", EnvBin)
	}
	dir := t.TempDir()
	etcdURL := startEtcd(t, bin, dir)

	ca, caKey := newCA(t)
	certFile, keyFile := serving(t, dir, ca, caKey)
	saKey := filepath.Join(dir, "sa.key")
	writeKey(t, saKey)

	tokens := map[string]string{"admin": "admin-token"}
	var lines []string
	lines = append(lines, `admin-token,admin,admin,"system:masters"`)
	for ctx, u := range users {
		tok := ctx + "-token"
		tokens[ctx] = tok
		lines = append(lines, fmt.Sprintf("%s,%s,%s,%q", tok, u.Name, u.Name, strings.Join(u.Groups, ",")))
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	must(t, os.WriteFile(tokenFile, []byte(strings.Join(lines, "\n")+"\n"), 0o600))

	port := freePort(t)
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + certFile, "--tls-private-key-file=" + keyFile,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saKey, "--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// The kubernetes Service's endpoint would be this loopback
		// address, which the reconciler refuses; nothing here needs it.
		"--endpoint-reconciler-type=none",
		// No controller-manager makes the namespace's default service
		// account: pods are admitted without one.
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
	}
	exited := run(t, filepath.Join(bin, "kube-apiserver"), args, filepath.Join(dir, "kube-apiserver.log"))

	s := &Server{URL: fmt.Sprintf("https://127.0.0.1:%d", port), caPEM: pemCert(ca)}
	s.Kubeconfig = filepath.Join(dir, "kubeconfig")
	s.writeKubeconfig(t, tokens)
	var err error
	s.AdminREST, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: s.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: "admin"}).ClientConfig()
	must(t, err)
	s.Admin, err = kubernetes.NewForConfig(s.AdminREST)
	must(t, err)
	s.waitReady(t, filepath.Join(dir, "kube-apiserver.log"), exited)
	return s
}

func (s *Server) writeKubeconfig(t *testing.T, tokens map[string]string) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: s.caPEM}
	for ctx, tok := range tokens {
		cfg.AuthInfos[ctx] = &clientcmdapi.AuthInfo{Token: tok}
		cfg.Contexts[ctx] = &clientcmdapi.Context{Cluster: "test", AuthInfo: ctx}
	}
	cfg.CurrentContext = "admin"
	must(t, clientcmd.WriteToFile(*cfg, s.Kubeconfig))
}

// waitReady polls /readyz until the server says ready; a server that
// never does fails the test with its log's tail.
func (s *Server) waitReady(t *testing.T, log string, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(180 * time.Second)
	for {
		body, err := s.Admin.RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			return
		}
		select {
		case <-exited:
			data, _ := os.ReadFile(log)
			t.Fatalf("kube-apiserver exited: %v\n%s", err, tail(data, 3000))
		default:
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(log)
			t.Fatalf("kube-apiserver not ready after 180 s: %v\n%s", err, tail(data, 3000))
		}
		time.Sleep(200 * time.Millisecond) // a real process starting; nothing to inject
	}
}

func startEtcd(t *testing.T, bin, dir string) string {
	client, peer := freePort(t), freePort(t)
	cu, pu := fmt.Sprintf("http://127.0.0.1:%d", client), fmt.Sprintf("http://127.0.0.1:%d", peer)
	run(t, filepath.Join(bin, "etcd"), []string{
		"--name=test", "--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + cu, "--advertise-client-urls=" + cu,
		"--listen-peer-urls=" + pu, "--initial-advertise-peer-urls=" + pu,
		"--initial-cluster=test=" + pu,
		"--log-level=error", "--unsafe-no-fsync",
	}, filepath.Join(dir, "etcd.log"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(cu + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return cu
			}
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(filepath.Join(dir, "etcd.log"))
			t.Fatalf("etcd not healthy after 30 s: %v\n%s", err, tail(data, 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// run starts a process that the test's cleanup kills; the channel closes
// when it exits.
func run(t *testing.T, path string, args []string, logFile string) <-chan struct{} {
	t.Helper()
	log, err := os.Create(logFile)
	must(t, err)
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	must(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		log.Close()
	})
	return exited
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubetest CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	ca, err := x509.ParseCertificate(der)
	must(t, err)
	return ca, key
}

// serving writes a serving certificate for 127.0.0.1 signed by ca.
func serving(t *testing.T, dir string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	must(t, err)
	certFile, keyFile = filepath.Join(dir, "serving.crt"), filepath.Join(dir, "serving.key")
	must(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	kder, err := x509.MarshalECPrivateKey(key)
	must(t, err)
	must(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certFile, keyFile
}

// writeKey writes an ECDSA key that signs service account tokens.
func writeKey(t *testing.T, path string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	der, err := x509.MarshalECPrivateKey(key)
	must(t, err)
	must(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600))
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
