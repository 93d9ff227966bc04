package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"
)

// A line is one measured workload of the benchmark.
type line struct {
	name string
	// writes marks lines that add or change entities. They run after the
	// reads, and after peak RSS is taken, so that both servers are
	// measured holding the same data: the faster server would otherwise
	// hold more, having inserted more in the same time.
	writes bool
	// floor marks lines the floor server can answer: single requests
	// that need no table.
	floor bool
	run   func(c *client, base, table string, size int, dur time.Duration) result
}

func pointRead(conc int) func(*client, string, string, int, time.Duration) result {
	return func(c *client, base, table string, size int, dur time.Duration) result {
		return measure(conc, dur, 0, func(w, seq int) (int, error) {
			i := rand.IntN(size)
			code, _, _, err := c.do("GET", fmt.Sprintf("%s/%s(PartitionKey='%s',RowKey='%s')", base, table, partitionOf(i), rowOf(i)), nil, nil)
			if err == nil && code != 200 {
				err = fmt.Errorf("status %d", code)
			}
			return 1, err
		})
	}
}

func insert(conc int) func(*client, string, string, int, time.Duration) result {
	return func(c *client, base, table string, size int, dur time.Duration) result {
		tag := rand.IntN(1 << 30)
		return measure(conc, dur, 0, func(w, seq int) (int, error) {
			pk := fmt.Sprintf("ins%d", w)
			code, _, _, err := c.do("POST", base+"/"+table, entity(pk, fmt.Sprintf("%d-%08d", tag, seq), seq), map[string]string{"Prefer": "return-no-content"})
			if err == nil && code != 204 {
				err = fmt.Errorf("status %d", code)
			}
			return 1, err
		})
	}
}

func partitionQuery(c *client, base, table string, size int, dur time.Duration) result {
	return measure(1, dur, 0, func(w, seq int) (int, error) {
		p := partitionOf(rand.IntN(size))
		code, n, _, err := c.count("GET", base+"/"+table+"()?$filter="+url.QueryEscape("PartitionKey eq '"+p+"'"))
		if err == nil && code != 200 {
			err = fmt.Errorf("status %d", code)
		}
		if err == nil && n != 1000 {
			err = fmt.Errorf("partition %s: %d entities, want 1000", p, n)
		}
		return n, err
	})
}

// filteredScan reads the first 20 partitions (20,000 entities, or all of
// a smaller table), filtered on a property that is not a key. The lower
// bound keeps out the partitions the write lines add.
func filteredScan(c *client, base, table string, size int, dur time.Duration) result {
	f := url.QueryEscape("PartitionKey ge 'p0000' and PartitionKey lt 'p0020' and Cat eq 7")
	want := min(size, 20000) / 50
	return measure(1, dur, 0, func(w, seq int) (int, error) {
		n, err := pagedScan(c, base+"/"+table+"()?$filter="+f)
		if err == nil && n != want {
			err = fmt.Errorf("filtered scan: %d entities, want %d", n, want)
		}
		return n, err
	})
}

// fullScan runs whole-table scans, one after another for the line's
// duration (at least one), in entities/s; each is cut off after 30 s.
func fullScan(c *client, base, table string, size int, dur time.Duration) result {
	cut := false
	r := measure(1, dur, 0, func(w, seq int) (int, error) {
		n, err := pagedScanUntil(c, base+"/"+table+"()", time.Now().Add(30*time.Second))
		cut = n < size
		if err == nil && n > size {
			err = fmt.Errorf("full scan: %d entities in a table of %d", n, size)
		}
		return n, err
	})
	r.note = fmt.Sprintf("(entities/s over %d)", size)
	if cut {
		r.note = fmt.Sprintf("(entities/s; cut off after 30 s before reaching %d)", size)
	}
	return r
}

func merge(c *client, base, table string, size int, dur time.Duration) result {
	return measure(16, dur, 0, func(w, seq int) (int, error) {
		i := rand.IntN(size)
		code, _, _, err := c.do("PATCH", fmt.Sprintf("%s/%s(PartitionKey='%s',RowKey='%s')", base, table, partitionOf(i), rowOf(i)),
			[]byte(fmt.Sprintf(`{"Visits":%d}`, seq)), map[string]string{"If-Match": "*"})
		if err == nil && code != 204 {
			err = fmt.Errorf("status %d", code)
		}
		return 1, err
	})
}

func batch(c *client, base, table string, size int, dur time.Duration) result {
	tag := rand.IntN(1 << 30)
	return measure(1, dur, 0, func(w, seq int) (int, error) {
		ct, body := batchBody(base, table, fmt.Sprintf("bat%d-%d", tag, seq), 0, 100)
		code, rb, _, err := c.do("POST", base+"/$batch", body, map[string]string{"Content-Type": ct})
		if err == nil && (code != 202 || bytes.Contains(rb, []byte("odata.error"))) {
			err = fmt.Errorf("status %d", code)
		}
		return 100, err
	})
}

// The names of the two lines whose target is a fraction of the floor.
const (
	pointReadC1 = "point read c1"
	insertC1    = "insert c1"
)

var lines = []line{
	{pointReadC1, false, true, pointRead(1)},
	{"point read c16", false, true, pointRead(16)},
	{"partition query 1,000 c1", false, false, partitionQuery},
	{"filtered scan of 20,000 c1", false, false, filteredScan},
	{"full paged scan c1", false, false, fullScan},
	{insertC1, true, true, insert(1)},
	{"insert c16", true, false, insert(16)},
	{"merge c16", true, false, merge},
	{"100-op batch c1 (entities/s)", true, false, batch},
}
