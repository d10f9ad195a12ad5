package flagfile

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/almanac-sh/almanac/internal/redact"
)

// recorder wraps a repeatable flag's value to remember each value given,
// so the effective settings can be printed as an array.
type recorder struct {
	flag.Value
	values []string
}

// String is the wrapped value's; the flag package also calls it on a zero
// recorder (to learn the zero value's text for --help), which wraps
// nothing.
func (r *recorder) String() string {
	if r == nil || r.Value == nil {
		return ""
	}
	return r.Value.String()
}

func (r *recorder) Set(s string) error {
	if err := r.Value.Set(s); err != nil {
		return err
	}
	r.values = append(r.values, s)
	return nil
}

// Record makes every repeatable flag of fs remember the values it is
// given, for [Print]. Call it after the flags are declared and before
// they are parsed.
func Record(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if Repeatable(f) && !isBool(f) {
			if _, done := f.Value.(*recorder); !done {
				f.Value = &recorder{Value: f.Value}
			}
		}
	})
}

// Values returns the values a repeatable flag was given, in order (see
// Record); for any other flag, its value alone.
func Values(f *flag.Flag) []string {
	if r, ok := f.Value.(*recorder); ok {
		return slices.Clone(r.values)
	}
	return []string{f.Value.String()}
}

// Masked is what Print shows in place of a secret.
const Masked = "********"

// secret reports whether flag name holds a secret: its name says token,
// secret or password (a *-file flag holds a path, which is not one).
func secret(name string) bool {
	if strings.HasSuffix(name, "-file") {
		return false
	}
	for _, w := range []string{"token", "secret", "password"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// maskValue hides a secret value: a NAME=SECRET pair keeps its name.
func maskValue(s string) string {
	if s == "" {
		return ""
	}
	if name, _, ok := strings.Cut(s, "="); ok {
		return name + "=" + Masked
	}
	return Masked
}

// webhook reports whether flag name holds notification targets or a
// webhook URL, whose path is the credential.
func webhook(name string) bool {
	return strings.Contains(name, "notify") || strings.Contains(name, "webhook")
}

// mask hides the secret in value s of flag name: the whole value of a
// secret, everything after the host of a webhook or Slack URL, the
// password of any other URL.
func mask(name, s string) string {
	switch {
	case secret(name):
		return maskValue(s)
	case webhook(name):
		return redact.Target(s)
	}
	return redact.URL(s)
}

// Print writes the effective value of every flag of fs but those in skip
// as a configuration file that [Parse] reads back: secrets are masked
// (tokens, secrets, passwords, and the password of a URL), and a setting
// still at its default is marked so in a comment.
func Print(w io.Writer, fs *flag.FlagSet, skip map[string]bool) error {
	var b bytes.Buffer
	for _, f := range sortedFlags(fs, skip) {
		v := value(f)
		var enc bytes.Buffer
		if err := toml.NewEncoder(&enc).Encode(map[string]any{Key(f.Name): v}); err != nil {
			return fmt.Errorf("flag %s: %w", f.Name, err)
		}
		line := strings.TrimRight(enc.String(), "\n")
		if f.Value.String() == f.DefValue {
			line += " # default"
		}
		b.WriteString(line + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// value is f's effective value as a TOML value, masked where secret.
func value(f *flag.Flag) any {
	if r, ok := f.Value.(*recorder); ok {
		out := make([]string, 0, len(r.values))
		for _, s := range r.values {
			out = append(out, mask(f.Name, s))
		}
		return out
	}
	if isBool(f) {
		b, _ := strconv.ParseBool(f.Value.String())
		return b
	}
	if g, ok := f.Value.(flag.Getter); ok {
		switch n := g.Get().(type) {
		case int:
			return n
		case int64:
			return n
		case uint:
			return uint64(n)
		case uint64:
			return n
		case float64:
			return n
		case time.Duration:
			return n.String()
		}
	}
	return mask(f.Name, f.Value.String())
}
