package agent

import (
	"encoding/json"
	"fmt"
)

// reportBody is the part of a stored report that only a single report's
// page reads.
type reportBody struct {
	Resources []ResourceStatus `json:"resources"`
	Events    []Event          `json:"events"`
}

// EncodeReport encodes r for a StateStore in two parts: head, everything a
// list of reports shows, and body, the resources and events. Stores keep
// them apart so that listing reports never decodes a body. The ID and
// Gated are not stored.
func EncodeReport(r *Report) (head, body []byte, err error) {
	h := *r
	h.Resources, h.Events, h.Gated, h.ID = nil, nil, nil, 0
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, fmt.Errorf("encode apply report: %w", err)
	}
	if body, err = json.Marshal(reportBody{Resources: r.Resources, Events: r.Events}); err != nil {
		return nil, nil, fmt.Errorf("encode apply report: %w", err)
	}
	return head, body, nil
}

// DecodeReportHead decodes the head EncodeReport made into a report
// without resources or events, with id.
func DecodeReportHead(id int64, head []byte) (*Report, error) {
	r := &Report{}
	if err := json.Unmarshal(head, r); err != nil {
		return nil, fmt.Errorf("apply report %d: %w", id, err)
	}
	r.ID = id
	return r, nil
}

// DecodeReport decodes a whole report EncodeReport made, with id.
func DecodeReport(id int64, head, body []byte) (*Report, error) {
	r, err := DecodeReportHead(id, head)
	if err != nil {
		return nil, err
	}
	var b reportBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("apply report %d: %w", id, err)
	}
	r.Resources, r.Events = b.Resources, b.Events
	return r, nil
}
