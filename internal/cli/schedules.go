package cli

import (
	"errors"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// The catalog compiler checks schedule resources with the Puppet schedule
// implementation, so `validate`, `apply` and the daemon reject an invalid
// range or weekday at compile time with Puppet's message.
func init() { catalog.ValidateSchedule = validateSchedule }

// scheduleAttrError adapts a puppetsched.AttrError to the catalog's
// convention: the catalog prefixes "Parameter <attr> failed on <ref>: ".
type scheduleAttrError struct{ *puppetsched.AttrError }

func (e scheduleAttrError) Attribute() string { return e.Attr }
func (e scheduleAttrError) Error() string     { return e.Msg }

func validateSchedule(title string, attrs map[string]any) error {
	p, err := puppetsched.FromAttrs(attrs)
	if err == nil {
		_, err = puppetsched.New(title, p)
	}
	var ae *puppetsched.AttrError
	if errors.As(err, &ae) && !ae.Unknown {
		return scheduleAttrError{ae}
	}
	return err
}
