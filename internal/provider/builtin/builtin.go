// Package builtin names the providers almanac ships: the resource types
// `almanac apply` and the agent's applies change by default. It sits
// above package apply because every provider imports apply.
package builtin

import (
	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/facts"
	"github.com/almanac-sh/almanac/internal/provider/account"
	"github.com/almanac-sh/almanac/internal/provider/exec"
	"github.com/almanac-sh/almanac/internal/provider/file"
	"github.com/almanac-sh/almanac/internal/provider/notify"
	"github.com/almanac-sh/almanac/internal/provider/packages"
	"github.com/almanac-sh/almanac/internal/provider/service"
)

// Providers are the resource types an apply changes by default, by type
// name; the package provider is the one for this host's os.family.
func Providers() map[string]apply.Provider {
	return map[string]apply.Provider{
		"exec":    exec.Provider{},
		"file":    file.Provider{},
		"service": service.Provider{},
		"notify":  notify.Provider{},
		"package": packages.Provider{Family: osFamily()},
		"user":    account.User{},
		"group":   account.Group{},
	}
}

// osFamily is this host's os.family fact, which picks the package provider.
func osFamily() string {
	_, f := facts.Local()
	osf, _ := f["os"].(map[string]any)
	family, _ := osf["family"].(string)
	return family
}
