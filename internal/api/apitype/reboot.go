package apitype

import "time"

// RebootGroup is a FleetLock reboot group and its holders, as
// GET /api/v1/reboot-groups answers. The group's secret is never shown.
type RebootGroup struct {
	Name string `json:"name"`
	// Max is how many members may hold a slot at once.
	Max int `json:"max_holders"`
	// Window names the window slots are granted in; empty for always.
	Window string `json:"window,omitempty"`
	// Open reports whether the window is open now; NextOpen is when it
	// opens next while it is closed.
	Open     bool       `json:"open"`
	NextOpen *time.Time `json:"next_open,omitempty"`
	// Authenticated says how members authenticate: "secret" or
	// "allow-list".
	Auth    string         `json:"auth"`
	Holders []RebootHolder `json:"holders"`
}

// RebootHolder is a member holding a reboot slot.
type RebootHolder struct {
	ID    string    `json:"id"`
	Since time.Time `json:"since"`
	// Overdue is true once the slot is held longer than the group's
	// max_hold.
	Overdue bool `json:"overdue"`
}

// RebootGroupList is the body of GET /api/v1/reboot-groups.
type RebootGroupList struct {
	Items []RebootGroup `json:"items"`
}
