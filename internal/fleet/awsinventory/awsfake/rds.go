package awsfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

const rdsNS = "http://rds.amazonaws.com/doc/2014-10-31/"

func (s *Server) rds(region string, q query) answer {
	if s.throttled() {
		return s.rdsError(http.StatusBadRequest, "Throttling", "Rate exceeded")
	}
	switch a := q.action(); a {
	case "DescribeDBInstances":
		return s.describeDBs(region, q, false)
	case "DescribeDBClusters":
		return s.describeDBs(region, q, true)
	case "StartDBInstance", "StopDBInstance":
		return s.changeDB(region, q.get("DBInstanceIdentifier"), false, a == "StartDBInstance")
	case "StartDBCluster", "StopDBCluster":
		return s.changeDB(region, q.get("DBClusterIdentifier"), true, a == "StartDBCluster")
	}
	return s.rdsError(http.StatusBadRequest, "InvalidAction", fmt.Sprintf("Could not find operation %s", q.action()))
}

// rdsError is RDS's error answer.
func (s *Server) rdsError(status int, code, msg string) answer {
	var b strings.Builder
	b.WriteString(`<ErrorResponse xmlns="` + rdsNS + `"><Error>`)
	el(&b, "Type", "Sender")
	el(&b, "Code", code)
	el(&b, "Message", msg)
	b.WriteString("</Error>")
	el(&b, "RequestId", requestID(s.seq))
	b.WriteString("</ErrorResponse>")
	return answer{status, b.String()}
}

// names of the elements that differ between DB instances and clusters.
type dbNames struct {
	action, list, item, id, status, arn, notFound, badState string
}

var (
	instanceNames = dbNames{"DescribeDBInstances", "DBInstances", "DBInstance", "DBInstanceIdentifier", "DBInstanceStatus", "DBInstanceArn", "DBInstanceNotFound", "InvalidDBInstanceState"}
	clusterNames  = dbNames{"DescribeDBClusters", "DBClusters", "DBCluster", "DBClusterIdentifier", "Status", "DBClusterArn", "DBClusterNotFoundFault", "InvalidDBClusterStateFault"}
)

func names(cluster bool) dbNames {
	if cluster {
		return clusterNames
	}
	return instanceNames
}

func (s *Server) describeDBs(region string, q query, cluster bool) answer {
	n := names(cluster)
	one := q.get(n.id)
	var list []*DB
	for _, d := range s.dbs {
		if d.Region == region && d.Cluster == cluster && (one == "" || d.Identifier == one) {
			list = append(list, d)
		}
	}
	if one != "" && len(list) == 0 {
		return s.rdsError(http.StatusNotFound, n.notFound, fmt.Sprintf("%s %s not found.", n.item, one))
	}
	slices.SortFunc(list, func(a, b *DB) int { return strings.Compare(a.Identifier, b.Identifier) })
	start, end, next, err := page(len(list), q.get("Marker"), q.get("MaxRecords"), 100, s.pageSize)
	if err != nil {
		return s.rdsError(http.StatusBadRequest, "InvalidParameterValue", err.Error())
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<%sResponse xmlns="%s"><%sResult><%s>`, n.action, rdsNS, n.action, n.list)
	for _, d := range list[start:end] {
		writeDB(&b, d)
	}
	b.WriteString("</" + n.list + ">")
	if next != "" {
		el(&b, "Marker", next)
	}
	b.WriteString("</" + n.action + "Result><ResponseMetadata>")
	el(&b, "RequestId", requestID(s.seq))
	b.WriteString("</ResponseMetadata></" + n.action + "Response>")
	return answer{http.StatusOK, b.String()}
}

// writeDB writes a DBInstance or DBCluster element with the members of the
// API reference's examples that matter here.
func writeDB(b *strings.Builder, d *DB) {
	n := names(d.Cluster)
	b.WriteString("<" + n.item + ">")
	if d.Cluster {
		el(b, "Engine", "aurora-postgresql")
		el(b, "EngineVersion", "15.4")
		el(b, "DBClusterIdentifier", d.Identifier)
		el(b, "Status", d.Status)
		el(b, "MultiAZ", "false")
		el(b, "DBClusterArn", d.ARN())
	} else {
		el(b, "DBInstanceIdentifier", d.Identifier)
		el(b, "DBInstanceClass", "db.t3.micro")
		el(b, "Engine", "postgres")
		el(b, "DBInstanceStatus", d.Status)
		el(b, "MasterUsername", "admin")
		el(b, "AllocatedStorage", "20")
		el(b, "AvailabilityZone", d.Region+"a")
		if d.ClusterID != "" {
			el(b, "DBClusterIdentifier", d.ClusterID)
		}
		el(b, "DBInstanceArn", d.ARN())
	}
	writeTags(b, d.Tags, "TagList", "Tag", "Key", "Value")
	b.WriteString("</" + n.item + ">")
}

// changeDB is StartDBInstance, StopDBInstance, StartDBCluster and
// StopDBCluster, with RDS's rules: only an available database stops, only
// a stopped one starts, and an Aurora cluster's instances are started and
// stopped through their cluster.
func (s *Server) changeDB(region, id string, cluster, start bool) answer {
	n := names(cluster)
	action := "Stop" + n.item
	if start {
		action = "Start" + n.item
	}
	call := Call{Region: region, Action: action, IDs: []string{id}}
	fail := func(status int, code, msg string) answer {
		call.Err = code
		s.calls = append(s.calls, call)
		return s.rdsError(status, code, msg)
	}
	d, ok := s.dbs[dbKey(region, cluster, id)]
	switch {
	case !ok:
		return fail(http.StatusNotFound, n.notFound, fmt.Sprintf("%s %s not found.", n.item, id))
	case d.ClusterID != "":
		return fail(http.StatusBadRequest, "InvalidParameterCombination", "aurora instances cannot be started or stopped on their own: use the cluster")
	case start && d.Status != "stopped":
		return fail(http.StatusBadRequest, n.badState, fmt.Sprintf("%s %s is not in stopped state.", n.item, id))
	case !start && d.Status != "available":
		return fail(http.StatusBadRequest, n.badState, fmt.Sprintf("%s %s is not in available state.", n.item, id))
	}
	if code, _ := s.refused([]string{d.ARN()}); code != "" {
		return fail(refusalStatus(code), code, fmt.Sprintf("%s %s: refused (%s).", n.item, id, code))
	}
	s.calls = append(s.calls, call)
	shown := *d
	if start {
		shown.Status, d.Status = "starting", "available"
	} else {
		shown.Status, d.Status = "stopping", "stopped"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<%sResponse xmlns="%s"><%sResult>`, action, rdsNS, action)
	writeDB(&b, &shown)
	b.WriteString("</" + action + "Result><ResponseMetadata>")
	el(&b, "RequestId", requestID(s.seq))
	b.WriteString("</ResponseMetadata></" + action + "Response>")
	return answer{http.StatusOK, b.String()}
}
