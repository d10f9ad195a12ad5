package cli

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/almanac-sh/almanac/internal/termtext"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/jobname"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

// clientFlags are the flags every command that talks to the daemon takes.
type clientFlags struct {
	server *string
	token  *string
	data   *string
	caCert *string
	config *string
}

// defaultDataDir is serve's --data default, and where the client looks for
// the daemon's token when none is given.
const defaultDataDir = daemon.DefaultDataDir

// envOr returns the environment variable's value, or def when it is unset
// or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// addClientFlags registers --server, --token, --data, --ca-cert and
// --config on fs. Their environment variables and the daemon's
// configuration file are consulted when the client is built (see
// clientFlags.resolve), so --help shows no token.
func addClientFlags(fs *flag.FlagSet) clientFlags {
	return clientFlags{
		server: fs.String("server", "", "daemon URL (env ALMANAC_SERVER; default: listen and tls_cert of the daemon's configuration file, else "+apiclient.DefaultServer+")"),
		token:  fs.String("token", "", "bearer token (env ALMANAC_TOKEN; default: token_file or token of the daemon's configuration file, else the token file in --data)"),
		data:   fs.String("data", "", "the daemon's data directory, whose token file is used when no token is given (env ALMANAC_DATA; default: data of the configuration file, else "+defaultDataDir+")"),
		caCert: fs.String("ca-cert", "", "PEM file of the CA (or self-signed certificate) an https daemon's certificate is checked against (env ALMANAC_CA_CERT; default: the configuration file's tls_cert must match exactly)"),
		config: fs.String("config", "", "the daemon's configuration file, read for listen, token_file, tls_cert and data when neither --server nor ALMANAC_SERVER is given (env ALMANAC_CONFIG; default "+SystemConfig+" when it exists)"),
	}
}

// client builds the API client from the flags, the environment and the
// daemon's configuration file; a malformed setting is a usage error.
func (f clientFlags) client() (*apiclient.Client, error) {
	s, err := f.settings()
	if err != nil {
		return nil, err
	}
	return s.build()
}

// settings resolves the flags against the process's environment and the
// packaged configuration file.
func (f clientFlags) settings() (clientSettings, error) {
	return f.resolve(os.Getenv, SystemConfig)
}

// build returns the API client for s.
func (s clientSettings) build() (*apiclient.Client, error) {
	tc, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	var rt http.RoundTripper = http.DefaultTransport
	if tc != nil {
		rt = &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tc}
	}
	if s.tokenErr != nil {
		rt = tokenHint{next: rt, err: s.tokenErr}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: rt}
	c, err := apiclient.New(s.server, apiclient.WithToken(s.token), apiclient.WithHTTPClient(hc))
	if err != nil {
		return nil, usagef("--server: %v", err)
	}
	return c, nil
}

// maxCAFile bounds how much of a --ca-cert file is read.
const maxCAFile = 1 << 20

// readPEMFile reads a certificate file, at most maxCAFile bytes.
func readPEMFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCAFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxCAFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxCAFile)
	}
	return b, nil
}

// readCAFile reads a PEM bundle of trusted certificates.
func readCAFile(path string) (*x509.CertPool, error) {
	b, err := readPEMFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// outputFlags are the flags of a daemon command that prints the daemon's
// answer: --server and --token, and -o for a table or JSON.
type outputFlags struct {
	clientFlags
	fs     *flag.FlagSet
	output *string
}

// addOutputFlags registers -o, --server and --token on fs.
func addOutputFlags(fs *flag.FlagSet) outputFlags {
	return outputFlags{
		clientFlags: addClientFlags(fs),
		fs:          fs,
		output:      fs.String("o", "", "output format: table or json"),
	}
}

// parse parses args and checks -o: it returns the positional arguments and
// whether the answer is to be printed as JSON.
func (f outputFlags) parse(args []string) (pos []string, jsonOut bool, err error) {
	if pos, err = parseFlags(f.fs, args); err != nil {
		return nil, false, err
	}
	if jsonOut, err = outputFormat(*f.output); err != nil {
		return nil, false, usagef("%s: %w", f.fs.Name(), err)
	}
	return pos, jsonOut, nil
}

// checkJobName returns a usage error for cmd when name is not a valid job
// name by the job package's rule, quoting the name as typed.
func checkJobName(cmd, name string) error {
	if !jobname.Valid(name) {
		return usagef("%s: %q is not a job name (want %s)", cmd, name, jobname.Rule)
	}
	return nil
}

// apiErr maps a client error to the CLI's exit codes: input the daemon
// rejected as malformed or invalid is a usage error (exit 2); everything
// else (not found, conflicts, an unreachable daemon) exits 1.
//
// The daemon names a bad query parameter "?state"; on the command line that
// is the flag --state, so the message says so.
func apiErr(err error) error {
	var ae *apiclient.Error
	if errors.As(err, &ae) {
		if f, ok := strings.CutPrefix(ae.API.Field, "?"); ok {
			c := *ae
			c.API.Field = "--" + f
			ae, err = &c, &c
		}
		switch ae.Status {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge,
			http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
			return &usageError{err}
		}
	}
	return err
}

// outputFormat validates -o.
func outputFormat(o string) (jsonOut bool, err error) {
	switch o {
	case "", "table":
		return false, nil
	case "json":
		return true, nil
	}
	return false, usagef("-o %q: want table or json", o)
}

func writeJSONOut(w io.Writer, v any) error {
	enc := json.NewEncoder(termtext.Raw(w))
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cols ...string) {
	for i, c := range cols {
		if c == "" {
			c = "-"
		}
		// Tabs and newlines in data would break the columns.
		c = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		if i > 0 {
			fmt.Fprint(t.tw, "\t")
		}
		fmt.Fprint(t.tw, c)
	}
	fmt.Fprintln(t.tw)
}

func (t *table) flush() error { return t.tw.Flush() }

// fmtTime renders an optional instant for a table.
func fmtTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.Local().Format(time.RFC3339)
}
