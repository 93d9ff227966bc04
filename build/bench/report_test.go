package bench

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestFloorVerdict(t *testing.T) {
	for _, tc := range []struct {
		ours, floor float64
		want        string
	}{
		{900, 1000, "= 0.90 of the floor (target ≥ 0.80): met"},
		{800, 1000, "= 0.80 of the floor (target ≥ 0.80): met"},
		{799, 1000, "= 0.80 of the floor (target ≥ 0.80): short"}, // rounds to 0.80 but is under it
		{500, 1000, "= 0.50 of the floor (target ≥ 0.80): short"},
	} {
		got := floorVerdict(pointReadC1, 10000, tc.ours, tc.floor)
		if !strings.HasPrefix(got, "target: point read c1 at 10000 entities:") || !strings.HasSuffix(got, tc.want) {
			t.Errorf("floorVerdict(%v, %v) = %q, want it to end %q", tc.ours, tc.floor, got, tc.want)
		}
	}
}

// The report prints a verdict for both lines held to the floor at every
// size both ran, and none for a line the floor does not answer.
func TestFloorTargetsPrintBothLines(t *testing.T) {
	ran := func(ops int) result { return result{ops: ops, elapsed: time.Second} }
	var out bytes.Buffer
	r := &report{w: &out, sizes: []int{1000}, rows: []row{
		{pointReadC1, 1000, "tablelab", ran(900)},
		{pointReadC1, 1000, "floor", ran(1000)},
		{insertC1, 1000, "tablelab", ran(500)},
		{insertC1, 1000, "floor", ran(1000)},
		{"partition query 1,000 c1", 1000, "tablelab", ran(10)},
	}}
	r.floorTargets()
	var lines []string
	for sc := bufio.NewScanner(&out); sc.Scan(); {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "point read c1") || !strings.HasSuffix(lines[0], ": met") ||
		!strings.Contains(lines[1], "insert c1") || !strings.HasSuffix(lines[1], ": short") {
		t.Fatalf("floorTargets printed %q", lines)
	}
}

func TestReadResponseChunked(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nx-ms-continuation-NextPartitionKey: p1\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n"
	var fields []byte
	status, h, body, keep, err := readResponse(bufio.NewReader(strings.NewReader(raw)), nil, &fields)
	if err != nil || status != 200 || string(body) != `{"a":1}` || !keep || h.Get("X-MS-Continuation-NextPartitionKey") != "p1" {
		t.Fatalf("readResponse = %d %q %v %v %v", status, body, h, keep, err)
	}
}

// The fields of one response are read in place and kept, whatever the
// next response on the connection overwrites: a length, Connection:
// close, a field asked for by any case, one missing.
func TestReadResponseFields(t *testing.T) {
	raw := "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nETag: W/\"x\"\r\nConnection: close\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-ms-continuation-NextRowKey:  r9 \r\n\r\nok"
	br := bufio.NewReader(strings.NewReader(raw))
	var fields []byte
	status, h, body, keep, err := readResponse(br, nil, &fields)
	if err != nil || status != 204 || len(body) != 0 || keep || h.Get("etag") != `W/"x"` || h.Get("x-ms-continuation-NextRowKey") != "" {
		t.Fatalf("first response: %d %q %q %v %v", status, body, h, keep, err)
	}
	status, h2, body, keep, err := readResponse(br, nil, &fields)
	if err != nil || status != 200 || string(body) != "ok" || !keep || h2.Get("X-MS-CONTINUATION-NEXTROWKEY") != "r9" {
		t.Fatalf("second response: %d %q %q %v %v", status, body, h2, keep, err)
	}
	if h.Get("ETag") != `W/"x"` {
		t.Fatalf("the first response's fields changed to %q", h)
	}
}
