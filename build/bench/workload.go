package bench

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// notes is the long property of entity, quoted once.
var notes = strconv.Quote(strings.Repeat("lorem ipsum dolor ", 45))

// entity is a ~1 KiB entity body.
func entity(pk, rk string, i int) []byte {
	return []byte(fmt.Sprintf(`{"PartitionKey":%q,"RowKey":%q,"Name":"Customer %d","Email":"customer%d@example.com","Cat":%d,"Score":%d.5,"Active":true,"Big":"%d","Big@odata.type":"Edm.Int64","Notes":%s}`,
		pk, rk, i, i, i%50, i%1000, int64(i)*1000003, notes))
}

// PointReadBody is the body the floor server answers every read with: a
// point read of the benchmark's table, as tablelab sends it with
// nometadata.
func PointReadBody() []byte { return entity(partitionOf(1234), rowOf(1234), 1234) }

func partitionOf(i int) string { return fmt.Sprintf("p%04d", i/1000) }
func rowOf(i int) string       { return fmt.Sprintf("r%07d", i) }

func batchBody(base, table string, pk string, from, n int) (string, []byte) {
	var b bytes.Buffer
	b.WriteString("--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n")
	for i := from; i < from+n; i++ {
		b.WriteString("--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		fmt.Fprintf(&b, "POST %s/%s HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\nDataServiceVersion: 3.0\r\n\r\n", base, table)
		b.Write(entity(pk, rowOf(i), i))
		b.WriteString("\r\n")
	}
	b.WriteString("--changeset_c--\r\n--batch_b--\r\n")
	return "multipart/mixed; boundary=batch_b", b.Bytes()
}

// load fills a table with n entities in partitions of 1,000, by batches.
func load(c *client, base, table string, n int) error {
	if code, body, _, err := c.do("POST", base+"/Tables", []byte(`{"TableName":"`+table+`"}`), nil); err != nil || code/100 != 2 {
		return fmt.Errorf("create table: %d %s %v", code, body, err)
	}
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(100)) - 100
				if i >= n || firstErr.Load() != nil {
					return
				}
				ct, body := batchBody(base, table, partitionOf(i), i, min(100, n-i))
				code, rb, _, err := c.do("POST", base+"/$batch", body, map[string]string{"Content-Type": ct})
				if err != nil || code != 202 || bytes.Contains(rb, []byte("odata.error")) {
					firstErr.Store(fmt.Sprintf("batch at %d: %d %v %.200s", i, code, err, rb))
					return
				}
			}
		}()
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return fmt.Errorf("%v", e)
	}
	return nil
}

// pagedScan follows continuation to the end and counts the entities.
func pagedScan(c *client, u string) (int, error) {
	return pagedScanUntil(c, u, time.Time{})
}

// pagedScanUntil is pagedScan that gives up after the deadline.
func pagedScanUntil(c *client, u string, deadline time.Time) (int, error) {
	n := 0
	next := ""
	for {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		code, got, hdr, err := c.count("GET", u+next)
		if err != nil {
			return n, err
		}
		if code != 200 {
			return n, fmt.Errorf("status %d", code)
		}
		n += got
		npk := hdr.Get("x-ms-continuation-NextPartitionKey")
		if npk == "" || !deadline.IsZero() && time.Now().After(deadline) {
			return n, nil
		}
		next = sep + "NextPartitionKey=" + url.QueryEscape(npk) + "&NextRowKey=" + url.QueryEscape(hdr.Get("x-ms-continuation-NextRowKey"))
	}
}
