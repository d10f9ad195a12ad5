package apitype

import "time"

// Resource is a managed resource (a machine or service started and stopped
// on the weekly schedule in its tags) as the fleet scheduler sees it.
type Resource struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"` // running, stopped or hibernated
	// Tags are all the resource's tags, schedule tags or not.
	Tags                map[string]string `json:"tags"`
	SupportsHibernation bool              `json:"supports_hibernation"`
	// Scheduled: it has a valid start and/or stop and a valid zone.
	// Actionable: scheduled and without errors, so transitions are applied.
	Scheduled  bool `json:"scheduled"`
	Actionable bool `json:"actionable"`
	// Validation is "ok", "warnings", "errors" or "unscheduled".
	Validation string `json:"validation"`
	// Start and Stop are the schedules in canonical weekly event syntax;
	// StartTimes and StopTimes are the same events as minutes since Monday
	// 00:00 in the schedule's zone.
	Start      string `json:"start,omitempty"`
	Stop       string `json:"stop,omitempty"`
	StartTimes []int  `json:"start_times,omitempty"`
	StopTimes  []int  `json:"stop_times,omitempty"`
	TimeZone   string `json:"time_zone,omitempty"`
	// Hibernate: a stop hibernates the resource.
	Hibernate bool   `json:"hibernate"`
	Notify    string `json:"notify,omitempty"`
	// NextStart and NextStop are the next transitions, in the schedule's
	// zone; null when none will happen.
	NextStart *time.Time `json:"next_start"`
	NextStop  *time.Time `json:"next_stop"`
	// Errors block every action; Warnings do not.
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
	// Retry is a failed action waiting for another attempt.
	Retry *ResourceRetry `json:"retry,omitempty"`
	// SeenAt is when an inventory last listed the resource.
	SeenAt time.Time `json:"seen_at"`
}

// Finding is one validation error or warning of a resource's tags.
type Finding struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Message string `json:"message"`
}

// ResourceRetry is a failed action that will be attempted again.
type ResourceRetry struct {
	Action     string    `json:"action"`
	Transition time.Time `json:"transition"`
	Attempts   int       `json:"attempts"`
	Next       time.Time `json:"next"`
	Deadline   time.Time `json:"deadline"`
}

// ResourceList is the body of GET /api/v1/resources.
type ResourceList struct {
	Items []Resource `json:"items"`
	// LastInventory is when the last successful inventory ran; null before
	// the first.
	LastInventory *time.Time `json:"last_inventory"`
}

// InventoryResult is the body of POST /api/v1/resources/inventory.
type InventoryResult struct {
	// Time is when the inventory ran (by the scheduler's clock).
	Time time.Time `json:"time"`
	// Resources is how many resources it listed.
	Resources int `json:"resources"`
}
