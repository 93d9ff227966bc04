package api

import (
	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// The Azure Cosmos DB for Table profile (Options.Cosmos) is a model of
// the differences between that service and Table storage that change a
// table's design, not an imitation of Cosmos DB: the protocol stays the
// same, and only these answers change.

// Limits of Azure Cosmos DB for Table that are tighter than Table
// storage's.
const (
	// MaxCosmosRowKeyBytes is the longest RowKey, in bytes of UTF-8
	// (Table storage takes 1 KiB of UTF-16).
	MaxCosmosRowKeyBytes = 255
	// MaxCosmosBatchBytes is the largest batch request body (Table
	// storage takes 4 MiB).
	MaxCosmosBatchBytes = 2 << 20
)

// PlanIndex is the X-Tablelab-Plan of a query that Cosmos DB for Table's
// automatic index answers where Table storage would scan.
const PlanIndex = "index"

// checkCosmosRowKey refuses, under the profile, a write whose RowKey is
// longer than Cosmos DB for Table takes. The code is the one Table
// storage gives a key over its own limit, so a client that handles one
// handles the other.
func (c *call) checkCosmosRowKey(rk string) error {
	if !c.s.cosmos || len(rk) <= MaxCosmosRowKeyBytes {
		return nil
	}
	return svcerr.With(svcerr.PropertyValueTooLarge, "The RowKey is longer than Azure Cosmos DB for Table takes: at most 255 bytes of UTF-8.")
}

// checkCosmosBatch refuses, under the profile, a batch whose body is
// larger than Cosmos DB for Table takes, with the code Table storage
// gives a batch over its other limit, the count of operations.
func (c *call) checkCosmosBatch() error {
	if !c.s.cosmos || len(c.req.Body) <= MaxCosmosBatchBytes {
		return nil
	}
	return svcerr.With(svcerr.InvalidInput, "The batch is larger than Azure Cosmos DB for Table takes: at most 2 MiB (2,097,152 bytes) in one batch.")
}

// sameTable reports whether two table names in one request name the same
// table: ignoring case as Table storage does, exactly under the profile.
func (s *Server) sameTable(a, b string) bool {
	if s.cosmos {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// cosmosPage rewrites, under the profile, a query's page and plan as
// Cosmos DB for Table would answer them. Its results are not sorted by
// keys: the model returns each page's entities in the order they were
// last written (their Timestamps, which the store keeps unique), which
// is deterministic but plainly not key order. And every property is
// indexed: a filter that leaves something to test beyond a partition or
// the whole table is answered by the index, which reads only what
// matches, so the plan is PlanIndex and examined equals returned. It
// returns the plan's name.
func (c *call) cosmosPage(filter string, page *engine.Page) string {
	byLastWrite(page.Entities)
	if !indexAnswers(filter) {
		return page.Plan.Class.String()
	}
	page.Plan.Examined = page.Plan.Returned
	return PlanIndex
}

// indexAnswers reports whether an index on every property would answer
// filter where the keys alone leave a scan: the filter plans as a
// partition or table scan, and tests more than the keys bound.
func indexAnswers(filter string) bool {
	if strings.TrimSpace(filter) == "" {
		return false
	}
	f, err := odata.Parse(filter)
	if err != nil {
		return false
	}
	p := f.Plan()
	return (p.Class == odata.PartitionScan || p.Class == odata.TableScan) && f.Residual(p) != nil
}

// byLastWrite sorts entities by Timestamp. It is an insertion sort: a page
// holds at most 1,000 entities, and a generic sort's code for them would
// cost the browser build several KB.
func byLastWrite(es []*engine.Entity) {
	for i := 1; i < len(es); i++ {
		e, j := es[i], i
		for j > 0 && es[j-1].Timestamp > e.Timestamp {
			j--
		}
		copy(es[j+1:i+1], es[j:i])
		es[j] = e
	}
}
