package cli

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/almanac-sh/almanac/internal/termtext"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/jobname"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/apitoken"
)

// clientFlags are the flags every command that talks to the daemon takes.
type clientFlags struct {
	server *string
	token  *string
	data   *string
	caCert *string
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

// addClientFlags registers --server, --token and --data on fs. Their
// defaults come from ALMANAC_SERVER, ALMANAC_TOKEN and ALMANAC_DATA.
func addClientFlags(fs *flag.FlagSet) clientFlags {
	return clientFlags{
		server: fs.String("server", envOr("ALMANAC_SERVER", apiclient.DefaultServer), "daemon URL (env ALMANAC_SERVER)"),
		token:  fs.String("token", os.Getenv("ALMANAC_TOKEN"), "bearer token (env ALMANAC_TOKEN; default: the token file in --data)"),
		data:   fs.String("data", envOr("ALMANAC_DATA", defaultDataDir), "the daemon's data directory, whose token file is used when --token is not given (env ALMANAC_DATA)"),
		caCert: fs.String("ca-cert", os.Getenv("ALMANAC_CA_CERT"), "PEM file of the CA (or self-signed certificate) an https --server's certificate is checked against (env ALMANAC_CA_CERT)"),
	}
}

// client builds the API client; a malformed --server or token is a usage
// error. Without --token or ALMANAC_TOKEN it uses the token the daemon
// stored in its data directory, when this user can read it.
func (f clientFlags) client() (*apiclient.Client, error) {
	tok := *f.token
	if tok != "" {
		if err := apitoken.Check(tok); err != nil {
			return nil, usagef("--token: %v", err)
		}
	} else if t, err := apitoken.Read(*f.data); err == nil {
		tok = t
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		return nil, usagef("--data: %v", err)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if *f.caCert != "" {
		pool, err := readCAFile(*f.caCert)
		if err != nil {
			return nil, usagef("--ca-cert: %v", err)
		}
		hc.Transport = &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	}
	c, err := apiclient.New(*f.server, apiclient.WithToken(tok), apiclient.WithHTTPClient(hc))
	if err != nil {
		return nil, usagef("--server: %v", err)
	}
	return c, nil
}

// maxCAFile bounds how much of a --ca-cert file is read.
const maxCAFile = 1 << 20

// readCAFile reads a PEM bundle of trusted certificates.
func readCAFile(path string) (*x509.CertPool, error) {
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
