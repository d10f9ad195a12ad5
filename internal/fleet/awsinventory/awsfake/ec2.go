package awsfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

const ec2NS = "http://ec2.amazonaws.com/doc/2016-11-15/"

// stateCodes are EC2's instance state codes.
var stateCodes = map[string]int{
	"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80,
}

func (s *Server) ec2(region string, q query) answer {
	if s.throttled() {
		return s.ec2Error(http.StatusServiceUnavailable, "RequestLimitExceeded", "Request limit exceeded.")
	}
	switch q.action() {
	case "DescribeRegions":
		return s.describeRegions()
	case "DescribeInstances":
		return s.describeInstances(region, q)
	case "StartInstances", "StopInstances":
		return s.changeInstances(region, q)
	}
	return s.ec2Error(http.StatusBadRequest, "InvalidAction", fmt.Sprintf("The action %s is not valid for this web service.", q.action()))
}

// ec2Error is EC2's error answer.
func (s *Server) ec2Error(status int, code, msg string) answer {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Response><Errors><Error>")
	el(&b, "Code", code)
	el(&b, "Message", msg)
	b.WriteString("</Error></Errors>")
	el(&b, "RequestID", requestID(s.seq))
	b.WriteString("</Response>")
	return answer{status, b.String()}
}

func (s *Server) describeRegions() answer {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<DescribeRegionsResponse xmlns="` + ec2NS + `">`)
	el(&b, "requestId", requestID(s.seq))
	b.WriteString("<regionInfo>")
	for _, r := range s.regions {
		b.WriteString("<item>")
		el(&b, "regionName", r)
		el(&b, "regionEndpoint", "ec2."+r+".amazonaws.com")
		el(&b, "optInStatus", "opt-in-not-required")
		b.WriteString("</item>")
	}
	b.WriteString("</regionInfo></DescribeRegionsResponse>")
	return answer{http.StatusOK, b.String()}
}

// matches reports whether an instance passes the request's filters and
// instance ids.
func matches(in *Instance, filters map[string][]string, ids []string) bool {
	if len(ids) > 0 && !slices.Contains(ids, in.ID) {
		return false
	}
	for name, values := range filters {
		ok := false
		for _, v := range values {
			switch name {
			case "tag-key":
				for k := range in.Tags {
					ok = ok || glob(v, k)
				}
			case "instance-state-name":
				ok = ok || glob(v, in.State)
			case "instance-id":
				ok = ok || glob(v, in.ID)
			default:
				return false
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s *Server) describeInstances(region string, q query) answer {
	filters := q.filters()
	for name := range filters {
		switch name {
		case "tag-key", "instance-state-name", "instance-id":
		default:
			return s.ec2Error(http.StatusBadRequest, "InvalidParameterValue", fmt.Sprintf("The filter '%s' is invalid", name))
		}
	}
	ids := q.list("InstanceId")
	for _, id := range ids {
		if in, ok := s.instances[id]; !ok || in.Region != region {
			return s.ec2Error(http.StatusBadRequest, "InvalidInstanceID.NotFound", fmt.Sprintf("The instance ID '%s' does not exist", id))
		}
	}
	var list []*Instance
	for _, in := range s.instances {
		if in.Region == region && matches(in, filters, ids) {
			list = append(list, in)
		}
	}
	slices.SortFunc(list, func(a, b *Instance) int { return strings.Compare(a.ID, b.ID) })
	start, end, next, err := page(len(list), q.get("NextToken"), q.get("MaxResults"), 1000, s.pageSize)
	if err != nil {
		return s.ec2Error(http.StatusBadRequest, "InvalidParameterValue", err.Error())
	}
	var b strings.Builder
	b.Grow((end - start) * 900)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<DescribeInstancesResponse xmlns="` + ec2NS + `">`)
	el(&b, "requestId", requestID(s.seq))
	b.WriteString("<reservationSet>")
	for _, in := range list[start:end] {
		writeReservation(&b, in)
	}
	b.WriteString("</reservationSet>")
	if next != "" {
		el(&b, "nextToken", next)
	}
	b.WriteString("</DescribeInstancesResponse>")
	return answer{http.StatusOK, b.String()}
}

// writeReservation writes one reservation holding one instance, with the
// elements of the API reference's example.
func writeReservation(b *strings.Builder, in *Instance) {
	b.WriteString("<item>")
	el(b, "reservationId", "r-"+strings.TrimPrefix(in.ID, "i-"))
	el(b, "ownerId", Account)
	b.WriteString("<groupSet/><instancesSet><item>")
	el(b, "instanceId", in.ID)
	el(b, "imageId", "ami-0abcdef1234567890")
	writeState(b, "instanceState", in.State)
	el(b, "privateDnsName", "ip-10-0-0-1."+in.Region+".compute.internal")
	b.WriteString("<dnsName/><reason/>")
	el(b, "amiLaunchIndex", "0")
	b.WriteString("<productCodes/>")
	el(b, "instanceType", "t3.micro")
	el(b, "launchTime", "2024-05-01T12:00:00.000Z")
	b.WriteString("<placement>")
	el(b, "availabilityZone", in.Region+"a")
	b.WriteString("<groupName/>")
	el(b, "tenancy", "default")
	b.WriteString("</placement><monitoring><state>disabled</state></monitoring>")
	if in.StateReason != "" {
		b.WriteString("<stateReason>")
		el(b, "code", in.StateReason)
		el(b, "message", in.StateReason+": "+reasonText[in.StateReason])
		b.WriteString("</stateReason>")
	}
	el(b, "architecture", "x86_64")
	el(b, "rootDeviceType", "ebs")
	el(b, "rootDeviceName", "/dev/xvda")
	el(b, "virtualizationType", "hvm")
	el(b, "hypervisor", "xen")
	if len(in.Tags) > 0 {
		writeTags(b, in.Tags, "tagSet", "item", "key", "value")
	}
	fmt.Fprintf(b, "<hibernationOptions><configured>%t</configured></hibernationOptions>", in.Hibernation)
	b.WriteString("</item></instancesSet></item>")
}

var reasonText = map[string]string{
	"Client.UserInitiatedShutdown":  "User initiated shutdown",
	"Client.UserInitiatedHibernate": "User initiated hibernate",
}

func writeState(b *strings.Builder, name, state string) {
	fmt.Fprintf(b, "<%s><code>%d</code><name>%s</name></%s>", name, stateCodes[state], state, name)
}

// changeInstances is StartInstances and StopInstances. Like EC2, it checks
// every instance before changing any: one that does not exist, cannot make
// the change or was told to refuse fails the whole request.
func (s *Server) changeInstances(region string, q query) answer {
	action := q.action()
	ids := q.list("InstanceId")
	hibernate := q.get("Hibernate") == "true"
	call := Call{Region: region, Action: action, IDs: ids, Hibernate: hibernate}
	fail := func(status int, code, msg string) answer {
		call.Err = code
		s.calls = append(s.calls, call)
		return s.ec2Error(status, code, msg)
	}
	if len(ids) == 0 {
		return fail(http.StatusBadRequest, "MissingParameter", "The request must contain the parameter InstanceId")
	}
	if len(ids) > 1000 {
		return fail(http.StatusBadRequest, "InvalidParameterValue", "Too many instance ids: at most 1000")
	}
	start := action == "StartInstances"
	for _, id := range ids {
		in, ok := s.instances[id]
		if !ok || in.Region != region {
			return fail(http.StatusBadRequest, "InvalidInstanceID.NotFound", fmt.Sprintf("The instance ID '%s' does not exist", id))
		}
		verb := "stopped"
		if start {
			verb = "started"
		}
		switch {
		case in.State == "terminated" || in.State == "shutting-down",
			start && in.State == "stopping":
			return fail(http.StatusBadRequest, "IncorrectInstanceState", fmt.Sprintf("The instance '%s' is not in a state from which it can be %s.", id, verb))
		case hibernate && !in.Hibernation:
			return fail(http.StatusBadRequest, "UnsupportedOperation", fmt.Sprintf("The instance '%s' does not have hibernation configured.", id))
		}
	}
	if code, id := s.refused(ids); code != "" {
		return fail(refusalStatus(code), code, fmt.Sprintf("The request for instance '%s' was refused (%s).", id, code))
	}
	s.calls = append(s.calls, call)

	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<` + action + `Response xmlns="` + ec2NS + `">`)
	el(&b, "requestId", requestID(s.seq))
	b.WriteString("<instancesSet>")
	for _, id := range ids {
		in := s.instances[id]
		prev := in.State
		cur := prev
		switch {
		case start && (prev == "stopped"):
			cur, in.State, in.StateReason = "pending", "running", ""
		case !start && (prev == "running" || prev == "pending"):
			cur, in.State, in.StateReason = "stopping", "stopped", "Client.UserInitiatedShutdown"
			if hibernate {
				in.StateReason = "Client.UserInitiatedHibernate"
			}
		}
		b.WriteString("<item>")
		el(&b, "instanceId", id)
		writeState(&b, "currentState", cur)
		writeState(&b, "previousState", prev)
		b.WriteString("</item>")
	}
	b.WriteString("</instancesSet></" + action + "Response>")
	return answer{http.StatusOK, b.String()}
}
