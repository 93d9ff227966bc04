package inspect

import (
	"strconv"
)

// Advice flags a query that read far more than it needed, with the
// patterns of the guide that would avoid it.
type Advice struct {
	Reason   string    `json:"reason"`
	Patterns []Pattern `json:"patterns"`
}

// A Pattern is a page of the site's pattern guide.
type Pattern struct {
	Title string `json:"title"`
	// Page is the page's path in the site, from its root.
	Page string `json:"page"`
}

// A query is wasteful when it examined at least WastefulRatio times what
// it returned, and at least WastefulMin entities: a few entities
// examined for none returned is a miss, not a design problem.
const (
	WastefulRatio = 10
	WastefulMin   = 100
)

var (
	indexEntities  = Pattern{"Index entities", "patterns/index-entities.html"}
	interPartition = Pattern{"Inter-partition secondary index", "patterns/inter-partition-secondary-index.html"}
	intraPartition = Pattern{"Intra-partition secondary index", "patterns/intra-partition-secondary-index.html"}
	compoundKey    = Pattern{"Compound key", "patterns/compound-key.html"}
)

// Advise returns the advice for a query of plan (an X-Tablelab-Plan) that
// examined and returned so many entities under filter (its $filter,
// empty for none), or nil when the query did what its keys allow. Every
// table scan is flagged; a partition scan or a range is when it was
// wasteful.
func Advise(plan string, examined, returned int, filter string) *Advice {
	counts := " (examined " + strconv.Itoa(examined) + ", returned " + strconv.Itoa(returned) + ")"
	wasteful := examined >= WastefulMin && examined >= WastefulRatio*returned
	switch {
	case plan == "table-scan" && filter == "":
		return &Advice{
			Reason:   "Table scan: the query names no partition, so it reads the whole table" + counts + ". Entities read together belong in one partition.",
			Patterns: []Pattern{compoundKey},
		}
	case plan == "table-scan":
		return &Advice{
			Reason:   "Table scan: the filter does not name one PartitionKey, so every partition is read" + counts + ". Look the value up by key instead.",
			Patterns: []Pattern{indexEntities, interPartition},
		}
	case plan == "partition-scan" && wasteful:
		return &Advice{
			Reason:   "Partition scan: the filter tests properties that are not keys, so the whole partition is read" + counts + ".",
			Patterns: []Pattern{intraPartition},
		}
	case plan == "range" && wasteful:
		return &Advice{
			Reason:   "Range: the RowKey range holds far more than the filter keeps" + counts + ": the key's order does not match the question.",
			Patterns: []Pattern{compoundKey, intraPartition},
		}
	}
	return nil
}
