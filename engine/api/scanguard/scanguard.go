// Package scanguard watches the Table service's queries for scans, the
// design guide's costliest patterns, so that a test suite finds them
// before production does: it reports each one (a response header and a
// log line) or refuses it with an error of tablelab's own.
//
// A scan is what the engine's plan says (X-Tablelab-Plan): by default a
// table-scan, which reads every partition; a partition-scan, which reads
// a whole partition, counts too when asked. The guard reads the plan of
// the answer, so a request the service would refuse anyway (a bad
// signature, a missing table, a malformed filter) keeps its own error.
package scanguard

import (
	"errors"
	"strconv"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Header marks an answer to a query that scanned: its value is the plan,
// then how a query avoids it.
const Header = "X-Tablelab-Scan-Warning"

// The plans a guard may count, as X-Tablelab-Plan names them.
const (
	TableScan     = "table-scan"
	PartitionScan = "partition-scan"
)

// Mode is what a guard does about a scan.
type Mode uint8

const (
	// Report answers the query as usual, with Header set, and logs it.
	Report Mode = iota + 1
	// Refuse answers 400 TableScanRefused instead of the page, with the
	// plan headers and Header kept, and logs it.
	Refuse
)

// Options configure a Guard.
type Options struct {
	Mode Mode
	// Plans are the plans that count as scans; none means TableScan.
	Plans []string
	// Logf, when set, receives a line for each scan.
	Logf func(format string, args ...any)
}

// Guard is a Table service that reports or refuses the scans of the
// service it wraps.
type Guard struct {
	next  api.Service
	mode  Mode
	table bool // TableScan counts
	part  bool // PartitionScan counts
	logf  func(string, ...any)
}

var _ api.Service = (*Guard)(nil)

// New returns a Guard over next, the Table service. A plan in o.Plans it
// does not know is an error.
func New(next api.Service, o Options) (*Guard, error) {
	g := &Guard{next: next, mode: o.Mode, logf: o.Logf}
	if g.mode != Report && g.mode != Refuse {
		return nil, errors.New("scanguard: the mode is Report or Refuse")
	}
	plans := o.Plans
	if len(plans) == 0 {
		plans = []string{TableScan}
	}
	for _, p := range plans {
		switch p {
		case TableScan:
			g.table = true
		case PartitionScan:
			g.part = true
		default:
			return nil, errors.New("scanguard: " + strconv.Quote(p) + " is not a plan that scans: " + TableScan + " or " + PartitionScan)
		}
	}
	return g, nil
}

// advice is how a query avoids the plan, in a header's plain ASCII.
func advice(plan string) string {
	if plan == TableScan {
		return "name one PartitionKey with eq in the $filter (a partition scan), or both keys (a point query)"
	}
	return "bound RowKey in the $filter too (a range query), or name it with eq (a point query)"
}

// what says what the plan reads.
func what(plan, table string) string {
	if plan == TableScan {
		return "reads every partition of table " + table
	}
	return "reads a whole partition of table " + table
}

// Serve answers req as the wrapped service does, then reports or refuses
// the answer when it is a page of a scan.
func (g *Guard) Serve(req *api.Request) *api.Response {
	resp := g.next.Serve(req)
	if resp.Status != 200 {
		return resp
	}
	plan := resp.Header.Get("X-Tablelab-Plan")
	if !(plan == TableScan && g.table || plan == PartitionScan && g.part) {
		return resp
	}
	t, err := api.Locate(req)
	if err != nil {
		return resp // not reached: the service answered it
	}
	filter := t.Param("$filter")
	shown := "no $filter"
	if filter != "" {
		shown = "$filter " + strconv.Quote(filter)
	}
	examined := resp.Header.Get("X-Tablelab-Examined")
	if g.logf != nil {
		verb := "scan"
		if g.mode == Refuse {
			verb = "scan refused"
		}
		g.logf("tablelab: %s: %s of %s, %s, examined %s, returned %s: %s", verb, plan, t.Table, shown, examined, resp.Header.Get("X-Tablelab-Returned"), advice(plan))
	}
	if g.mode == Report {
		resp.Header.Set(Header, plan+"; "+advice(plan))
		return resp
	}
	refused := g.next.Error(req, svcerr.With(svcerr.TableScanRefused,
		"tablelab refuses scans (-scan fail): this query, "+shown+", is a "+plan+": it "+what(plan, t.Table)+". To avoid it, "+advice(plan)+"."))
	h := &refused.Header
	h.Set("X-Tablelab-Plan", plan)
	h.Set("X-Tablelab-Examined", examined)
	h.Set("X-Tablelab-Returned", "0")
	h.Set(Header, plan+"; "+advice(plan))
	return refused
}

// Error answers as the wrapped service does.
func (g *Guard) Error(req *api.Request, err error) *api.Response { return g.next.Error(req, err) }
