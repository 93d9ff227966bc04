package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The load benchmark: tablelab and Azurite side by side in one run, on
// loopback, with the same workload, printing throughput, p50/p99 and peak
// RSS for each and their ratio.
//
//	go run ./build bench [-sizes 10000,100000,1000000] [-duration 3s]
//
// tablelab runs with -data (every write fsynced); Azurite runs in memory
// and on disk. Azurite comes from the npm packages of the JS test walk.

type benchTarget struct {
	name string
	base string // http://127.0.0.1:PORT/devstoreaccount1
	cmd  *exec.Cmd
	dir  string
}

// peakRSS reads the process's high-water resident set from /proc.
func (t *benchTarget) peakRSS() int64 {
	if t.cmd == nil || t.cmd.Process == nil {
		return 0 // not started by this run
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func (t *benchTarget) stop() {
	if t.cmd != nil && t.cmd.Process != nil {
		_ = t.cmd.Process.Kill() // only the server this run started
		_ = t.cmd.Wait()
	}
}

func startTarget(name string, args []string, dir string, port int) (*benchTarget, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t := &benchTarget{name: name, base: "http://" + addr + "/devstoreaccount1", cmd: cmd}
	if err := waitListening(addr, 60*time.Second); err != nil {
		t.stop()
		return nil, fmt.Errorf("%s did not start: %v\n%s", name, err, log.String())
	}
	return t, nil
}

// benchClient speaks HTTP/1.1 itself over kept-alive connections and
// signs requests with SharedKeyLite, as the SDKs do. The client shares the
// machine's two cores with the server it measures, so it is kept lean: no
// net/http client, no header map, one write per request. (A cache of
// signatures cost more than signing: point reads never repeat a
// resource.)
type benchClient struct {
	key  []byte
	pool chan *rawConn
}

// respHeader is a response's header fields, in order.
type respHeader [][2]string

// Get returns the first value of the named field, or "".
func (h respHeader) Get(name string) string {
	for _, kv := range h {
		if strings.EqualFold(kv[0], name) {
			return kv[1]
		}
	}
	return ""
}

type rawConn struct {
	c   net.Conn
	br  *bufio.Reader
	bw  *bufio.Writer
	buf []byte // response bodies, reused
}

func newBenchClient() *benchClient {
	key, _ := base64.StdEncoding.DecodeString(devKey)
	return &benchClient{key: key, pool: make(chan *rawConn, 64)}
}

func (c *benchClient) conn(host string) (*rawConn, error) {
	select {
	case rc := <-c.pool:
		return rc, nil
	default:
	}
	nc, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: nc, br: bufio.NewReaderSize(nc, 64<<10), bw: bufio.NewWriterSize(nc, 64<<10)}, nil
}

func (c *benchClient) do(method, rawURL string, body []byte, hdr map[string]string) (int, []byte, respHeader, error) {
	var out []byte
	status, h, err := c.exchange(method, rawURL, body, hdr, func(b []byte) { out = bytes.Clone(b) })
	return status, out, h, err
}

// count makes a request and counts the entities of the page it answers.
// The body is read into the connection's buffer and counted there: a
// page is a megabyte, and a fresh one for each would cost the client, on
// the cores it shares with the server, a clear and a collection.
func (c *benchClient) count(method, rawURL string) (int, int, respHeader, error) {
	n := 0
	status, h, err := c.exchange(method, rawURL, nil, nil, func(b []byte) { n = countEntities(b) })
	return status, n, h, err
}

// countEntities counts the entities of a JSON page: the objects in its
// "value" array, one opening brace each after the page's own. The
// benchmark's entities hold no braces in their text, so a count of one
// byte, which runs at memory speed, is exact here.
func countEntities(page []byte) int {
	if n := bytes.Count(page, []byte{'{'}); n > 1 {
		return n - 1
	}
	return 0
}

// exchange makes one request and hands the response body to use while it
// still lies in the connection's buffer.
func (c *benchClient) exchange(method, rawURL string, body []byte, hdr map[string]string, use func(body []byte)) (int, respHeader, error) {
	rest := strings.TrimPrefix(rawURL, "http://")
	slash := strings.IndexByte(rest, '/')
	host, target := rest[:slash], rest[slash:]
	path, query, _ := strings.Cut(target, "?")
	date := time.Now().UTC().Format(http.TimeFormat)
	resource := "/devstoreaccount1" + path
	if strings.Contains(query, "comp=") {
		q, _ := url.ParseQuery(query)
		resource += "?comp=" + q.Get("comp")
	}
	toSign := date + "\n" + resource
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(toSign))
	sig := "SharedKeyLite devstoreaccount1:" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	rc, err := c.conn(host)
	if err != nil {
		return 0, nil, err
	}
	w := rc.bw
	fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: %s\r\nx-ms-date: %s\r\nx-ms-version: 2019-02-02\r\nDataServiceVersion: 3.0\r\nAccept: application/json;odata=nometadata\r\nAuthorization: %s\r\nContent-Length: %d\r\n",
		method, target, host, date, sig, len(body))
	if _, ok := hdr["Content-Type"]; !ok {
		w.WriteString("Content-Type: application/json\r\n")
	}
	for k, v := range hdr {
		w.WriteString(k + ": " + v + "\r\n")
	}
	w.WriteString("\r\n")
	w.Write(body)
	if err := w.Flush(); err != nil {
		rc.c.Close()
		return 0, nil, err
	}
	status, respHdr, respBody, keep, err := readResponse(rc.br, rc.buf[:0])
	if err != nil {
		rc.c.Close()
		return 0, nil, err
	}
	use(respBody)
	rc.buf = respBody[:0]
	if keep {
		select {
		case c.pool <- rc:
		default:
			rc.c.Close()
		}
	} else {
		rc.c.Close()
	}
	return status, respHdr, nil
}

// readResponse reads one HTTP/1.1 response: Content-Length or chunked.
// The body is appended to buf.
func readResponse(br *bufio.Reader, buf []byte) (int, respHeader, []byte, bool, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, nil, nil, false, err
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0, nil, nil, false, fmt.Errorf("bad status line %q", line)
	}
	status, _ := strconv.Atoi(f[1])
	var h respHeader
	length, chunked, keep := -1, false, true
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return 0, nil, nil, false, err
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			break
		}
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		h = append(h, [2]string{k, v})
		switch {
		case strings.EqualFold(k, "content-length"):
			length, _ = strconv.Atoi(v)
		case strings.EqualFold(k, "transfer-encoding"):
			chunked = strings.Contains(strings.ToLower(v), "chunked")
		case strings.EqualFold(k, "connection"):
			keep = !strings.EqualFold(v, "close")
		}
	}
	body := buf[:0]
	switch {
	case chunked:
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return 0, nil, nil, false, err
			}
			n, err := strconv.ParseInt(strings.TrimSpace(strings.Split(l, ";")[0]), 16, 64)
			if err != nil {
				return 0, nil, nil, false, err
			}
			if n == 0 {
				br.ReadString('\n')
				break
			}
			body = slices.Grow(body, int(n))
			chunk := body[len(body) : len(body)+int(n)]
			if _, err := io.ReadFull(br, chunk); err != nil {
				return 0, nil, nil, false, err
			}
			body = body[:len(body)+int(n)]
			br.ReadString('\n')
		}
	case length >= 0:
		body = slices.Grow(body, length)[:length]
		if _, err := io.ReadFull(br, body); err != nil {
			return 0, nil, nil, false, err
		}
	case status == 204 || status == 304:
	default:
		return 0, nil, nil, false, fmt.Errorf("response without a length")
	}
	return status, h, body, keep, nil
}

// benchNotes is the long property of benchEntity, quoted once.
var benchNotes = strconv.Quote(strings.Repeat("lorem ipsum dolor ", 45))

// benchEntity is a ~1 KiB entity body.
func benchEntity(pk, rk string, i int) []byte {
	return []byte(fmt.Sprintf(`{"PartitionKey":%q,"RowKey":%q,"Name":"Customer %d","Email":"customer%d@example.com","Cat":%d,"Score":%d.5,"Active":true,"Big":"%d","Big@odata.type":"Edm.Int64","Notes":%s}`,
		pk, rk, i, i, i%50, i%1000, int64(i)*1000003, benchNotes))
}

func partitionOf(i int) string { return fmt.Sprintf("p%04d", i/1000) }
func rowOf(i int) string       { return fmt.Sprintf("r%07d", i) }

// result is one measured line.
type result struct {
	ops      int
	entities int
	elapsed  time.Duration
	lats     []time.Duration
	errs     int
	firstErr string // the first error a line met, to print beside the count
	note     string
}

func (r result) throughput() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	n := r.ops
	if r.entities > 0 {
		n = r.entities
	}
	return float64(n) / r.elapsed.Seconds()
}

func (r result) pct(p float64) time.Duration {
	if len(r.lats) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), r.lats...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1))]
}

// measure runs fn from conc goroutines until the duration has passed (or
// maxOps operations are done), timing each call.
func measure(conc int, dur time.Duration, maxOps int, fn func(worker, seq int) (entities int, err error)) result {
	var mu sync.Mutex
	var res result
	var count atomic.Int64
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var lats []time.Duration
			ents, errs := 0, 0
			var firstErr error
			for seq := 0; time.Now().Before(deadline); seq++ {
				if maxOps > 0 && int(count.Add(1)) > maxOps {
					break
				}
				t0 := time.Now()
				n, err := fn(w, seq)
				lats = append(lats, time.Since(t0))
				ents += n
				if err != nil {
					if errs == 0 {
						firstErr = err
					}
					errs++
					if errs > 20 {
						break
					}
				}
			}
			mu.Lock()
			res.lats = append(res.lats, lats...)
			res.ops += len(lats)
			res.entities += ents
			res.errs += errs
			if firstErr != nil && res.firstErr == "" {
				res.firstErr = firstLine(firstErr.Error())
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

func batchBodyFor(base, table string, pk string, from, n int) (string, []byte) {
	var b bytes.Buffer
	b.WriteString("--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n")
	for i := from; i < from+n; i++ {
		b.WriteString("--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		fmt.Fprintf(&b, "POST %s/%s HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\nDataServiceVersion: 3.0\r\n\r\n", base, table)
		b.Write(benchEntity(pk, rowOf(i), i))
		b.WriteString("\r\n")
	}
	b.WriteString("--changeset_c--\r\n--batch_b--\r\n")
	return "multipart/mixed; boundary=batch_b", b.Bytes()
}

// load fills a table with n entities in partitions of 1,000, by batches.
func load(c *benchClient, t *benchTarget, table string, n int) error {
	if code, body, _, err := c.do("POST", t.base+"/Tables", []byte(`{"TableName":"`+table+`"}`), nil); err != nil || code/100 != 2 {
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
				ct, body := batchBodyFor(t.base, table, partitionOf(i), i, min(100, n-i))
				code, rb, _, err := c.do("POST", t.base+"/$batch", body, map[string]string{"Content-Type": ct})
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

type benchLine struct {
	name string
	// writes marks lines that add or change entities. They run after the
	// reads, and after peak RSS is taken, so that both servers are
	// measured holding the same data: the faster server would otherwise
	// hold more, having inserted more in the same time.
	writes bool
	// floor marks lines the floor server (floor.go) can answer: single
	// requests that need no table.
	floor bool
	run   func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result
}

func pointRead(conc int) func(*benchClient, *benchTarget, string, int, time.Duration) result {
	return func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		return measure(conc, dur, 0, func(w, seq int) (int, error) {
			i := rand.IntN(size)
			code, _, _, err := c.do("GET", fmt.Sprintf("%s/%s(PartitionKey='%s',RowKey='%s')", t.base, table, partitionOf(i), rowOf(i)), nil, nil)
			if err == nil && code != 200 {
				err = fmt.Errorf("status %d", code)
			}
			return 1, err
		})
	}
}

func insert(conc int) func(*benchClient, *benchTarget, string, int, time.Duration) result {
	return func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		tag := rand.IntN(1 << 30)
		return measure(conc, dur, 0, func(w, seq int) (int, error) {
			pk := fmt.Sprintf("ins%d", w)
			code, _, _, err := c.do("POST", t.base+"/"+table, benchEntity(pk, fmt.Sprintf("%d-%08d", tag, seq), seq), map[string]string{"Prefer": "return-no-content"})
			if err == nil && code != 204 {
				err = fmt.Errorf("status %d", code)
			}
			return 1, err
		})
	}
}

var benchLines = []benchLine{
	{"point read c1", false, true, pointRead(1)},
	{"point read c16", false, true, pointRead(16)},
	{"partition query 1,000 c1", false, false, func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		return measure(1, dur, 0, func(w, seq int) (int, error) {
			p := partitionOf(rand.IntN(size))
			code, n, _, err := c.count("GET", t.base+"/"+table+"()?$filter="+url.QueryEscape("PartitionKey eq '"+p+"'"))
			if err == nil && code != 200 {
				err = fmt.Errorf("status %d", code)
			}
			if err == nil && n != 1000 {
				err = fmt.Errorf("partition %s: %d entities, want 1000", p, n)
			}
			return n, err
		})
	}},
	{"filtered scan of 20,000 c1", false, false, func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		// The first 20 partitions (20,000 entities, or all of a smaller
		// table), filtered on a property that is not a key. The lower
		// bound keeps out the partitions the write lines add.
		f := url.QueryEscape("PartitionKey ge 'p0000' and PartitionKey lt 'p0020' and Cat eq 7")
		want := min(size, 20000) / 50
		return measure(1, dur, 0, func(w, seq int) (int, error) {
			n, err := pagedScan(c, t.base+"/"+table+"()?$filter="+f)
			if err == nil && n != want {
				err = fmt.Errorf("filtered scan: %d entities, want %d", n, want)
			}
			return n, err
		})
	}},
	{"full paged scan c1", false, false, func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		// Whole-table scans, one after another for the line's duration
		// (at least one), entities/s; each cut off after 30 s.
		cut := false
		r := measure(1, dur, 0, func(w, seq int) (int, error) {
			n, err := pagedScanUntil(c, t.base+"/"+table+"()", time.Now().Add(30*time.Second))
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
	}},
	{"insert c1", true, true, insert(1)},
	{"insert c16", true, false, insert(16)},
	{"merge c16", true, false, func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		return measure(16, dur, 0, func(w, seq int) (int, error) {
			i := rand.IntN(size)
			code, _, _, err := c.do("PATCH", fmt.Sprintf("%s/%s(PartitionKey='%s',RowKey='%s')", t.base, table, partitionOf(i), rowOf(i)),
				[]byte(fmt.Sprintf(`{"Visits":%d}`, seq)), map[string]string{"If-Match": "*"})
			if err == nil && code != 204 {
				err = fmt.Errorf("status %d", code)
			}
			return 1, err
		})
	}},
	{"100-op batch c1 (entities/s)", true, false, func(c *benchClient, t *benchTarget, table string, size int, dur time.Duration) result {
		tag := rand.IntN(1 << 30)
		return measure(1, dur, 0, func(w, seq int) (int, error) {
			ct, body := batchBodyFor(t.base, table, fmt.Sprintf("bat%d-%d", tag, seq), 0, 100)
			code, rb, _, err := c.do("POST", t.base+"/$batch", body, map[string]string{"Content-Type": ct})
			if err == nil && (code != 202 || bytes.Contains(rb, []byte("odata.error"))) {
				err = fmt.Errorf("status %d", code)
			}
			return 100, err
		})
	}},
}

// pagedScan follows continuation to the end and counts the entities.
func pagedScan(c *benchClient, u string) (int, error) {
	return pagedScanUntil(c, u, time.Time{})
}

// pagedScanUntil is pagedScan that gives up after the deadline.
func pagedScanUntil(c *benchClient, u string, deadline time.Time) (int, error) {
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

func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizesFlag := fs.String("sizes", "10000,100000,1000000", "table sizes")
	dur := fs.Duration("duration", 3*time.Second, "time per line")
	targetsFlag := fs.String("targets", "tablelab,azurite-memory,azurite-disk", "targets to run, of tablelab, tablelab-in-memory, azurite-memory, azurite-disk, floor (see floor.go) and ext=HOST:PORT (a tablelab already running)")
	linesFlag := fs.String("lines", "", "run only the lines whose names contain one of these comma-separated words")
	cpuProfile := fs.String("cpuprofile", "", "write the load client's CPU profile to this `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tablelab-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "tablelab")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	azurite := filepath.Join(root, jsDir, "node_modules", ".bin", "azurite-table")
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		sizes = append(sizes, n)
	}
	lines := benchLines
	if *linesFlag != "" {
		lines = nil
		for _, l := range benchLines {
			for _, w := range strings.Split(*linesFlag, ",") {
				if strings.Contains(l.name, w) {
					lines = append(lines, l)
					break
				}
			}
		}
	}
	fsyncBound := measureFsync(tmp)
	fmt.Printf("fsync bound here: a 1 KiB write + fdatasync takes %s → at most %.0f sequential durable writes/s\n", fsyncBound.Round(time.Microsecond), 1/fsyncBound.Seconds())

	type row struct {
		line   string
		size   int
		target string
		res    result
	}
	var rows []row
	peak := map[string]int64{}
	restart := map[int]time.Duration{}
	for _, size := range sizes {
		for _, tname := range strings.Split(*targetsFlag, ",") {
			port, err := freePort()
			if err != nil {
				return err
			}
			var t *benchTarget
			switch {
			case strings.HasPrefix(tname, "ext="):
				// A tablelab already running, started by hand (to profile
				// it, say); its figures count as tablelab's.
				t = &benchTarget{name: "tablelab", base: "http://" + tname[4:] + "/devstoreaccount1"}
			case tname == "floor":
				var self string
				if self, err = os.Executable(); err != nil {
					return err
				}
				t, err = startTarget(tname, []string{self, "floor-server", "-addr", fmt.Sprintf("127.0.0.1:%d", port), "-dir", tmp}, tmp, port)
			case tname == "tablelab":
				t, err = startTarget(tname, []string{bin, "-table-addr", fmt.Sprintf("127.0.0.1:%d", port), "-data", filepath.Join(tmp, fmt.Sprintf("data-%d", size)), "-quiet"}, tmp, port)
			case tname == "tablelab-in-memory":
				// The same durable server, holding every entity in memory
				// rather than reading it back from its files.
				t, err = startTarget(tname, []string{bin, "-table-addr", fmt.Sprintf("127.0.0.1:%d", port), "-data", filepath.Join(tmp, fmt.Sprintf("kept-%d", size)), "-quiet", "-keep-in-memory"}, tmp, port)
			case tname == "azurite-memory":
				t, err = startTarget(tname, []string{azurite, "--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(port), "--inMemoryPersistence", "--disableTelemetry", "--silent"}, tmp, port)
			case tname == "azurite-disk":
				loc := filepath.Join(tmp, fmt.Sprintf("azurite-%d", size))
				_ = os.MkdirAll(loc, 0o755)
				t, err = startTarget(tname, []string{azurite, "--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(port), "--location", loc, "--disableTelemetry", "--silent"}, tmp, port)
			default:
				return fmt.Errorf("unknown target %q", tname)
			}
			if err != nil {
				return err
			}
			c := newBenchClient()
			table := fmt.Sprintf("bench%d", size)
			start := time.Now()
			runLine := func(l benchLine) {
				r := l.run(c, t, table, size, *dur)
				fmt.Printf("  %-30s %-15s %10.0f/s p50 %-10s p99 %-10s errors %d %s %s\n", l.name, tname, r.throughput(), r.pct(0.5).Round(time.Microsecond), r.pct(0.99).Round(time.Microsecond), r.errs, r.note, r.firstErr)
				rows = append(rows, row{l.name, size, tname, r})
			}
			if tname == "floor" {
				for _, l := range lines {
					if !l.floor {
						continue
					}
					runLine(l)
				}
				t.stop()
				continue
			}
			if err := load(c, t, table, size); err != nil {
				fmt.Printf("%s at %d entities: load failed: %v\n", tname, size, err)
				t.stop()
				rows = append(rows, row{"load", size, tname, result{note: "load failed: " + firstLine(err.Error())}})
				continue
			}
			fmt.Printf("%s: loaded %d entities in %s\n", tname, size, time.Since(start).Round(time.Millisecond))
			key := fmt.Sprintf("%s@%d", tname, size)
			for _, l := range lines {
				if l.writes && peak[key] == 0 {
					peak[key] = t.peakRSS()
				}
				runLine(l)
			}
			if peak[key] == 0 {
				peak[key] = t.peakRSS()
			}
			fmt.Printf("  peak RSS %s holding the loaded data (before the write lines): %d MiB; at the end: %d MiB\n", key, peak[key]>>20, t.peakRSS()>>20)
			t.stop()
			if tname == "tablelab" {
				// Start-up on the same directory: the time to replay it.
				start := time.Now()
				rt, err := startTarget(tname, t.cmd.Args, tmp, port)
				if err != nil {
					return err
				}
				restart[size] = time.Since(start)
				fmt.Printf("  restart on %d entities (plus the lines' writes): listening after %s, peak RSS %d MiB\n", size, restart[size].Round(time.Millisecond), rt.peakRSS()>>20)
				rt.stop()
			}
		}
	}

	find := func(line string, size int, target string) (result, bool) {
		for _, r := range rows {
			if r.line == line && r.size == size && r.target == target {
				return r.res, true
			}
		}
		return result{}, false
	}
	// A table of one target against another, as ratios: tablelab against
	// Azurite in memory, and, when it ran, against itself holding every
	// entity in memory.
	table := func(ours, theirs, label string) {
		fmt.Printf("\n| size | line | %s /s | p50 | p99 | %s /s | p50 | p99 | throughput × | p99 ratio |\n|---|---|---|---|---|---|---|---|---|---|\n", ours, label)
		for _, size := range sizes {
			for _, l := range lines {
				a, ok1 := find(l.name, size, ours)
				b, ok2 := find(l.name, size, theirs)
				if !ok1 {
					continue
				}
				bt, bp50, bp99, ratio, p99r := "n/a", "", "", "", ""
				if ok2 && b.ops > 0 {
					bt = fmt.Sprintf("%.0f", b.throughput())
					bp50, bp99 = b.pct(0.5).Round(time.Microsecond).String(), b.pct(0.99).Round(time.Microsecond).String()
					ratio = fmt.Sprintf("%.1f×", a.throughput()/b.throughput())
					p99r = fmt.Sprintf("%.2f", float64(a.pct(0.99))/float64(b.pct(0.99)))
				}
				fmt.Printf("| %d | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", size, l.name, a.throughput(), a.pct(0.5).Round(time.Microsecond), a.pct(0.99).Round(time.Microsecond), bt, bp50, bp99, ratio, p99r)
			}
			o, t := peak[fmt.Sprintf("%s@%d", ours, size)], peak[fmt.Sprintf("%s@%d", theirs, size)]
			ratio := ""
			if t > 0 {
				ratio = fmt.Sprintf("%.2f of %s", float64(o)/float64(t), label)
			}
			fmt.Printf("| %d | peak RSS, loaded data | %d MiB | | | %d MiB | | | | %s |\n", size, o>>20, t>>20, ratio)
		}
	}
	table("tablelab", "azurite-memory", "azurite-mem")
	if strings.Contains(*targetsFlag, "tablelab-in-memory") {
		table("tablelab", "tablelab-in-memory", "in-memory")
	}
	if strings.Contains(*targetsFlag, "floor") {
		// What the machine leaves reachable: tablelab as a fraction of
		// the do-nothing server, and what 10× Azurite would ask of it.
		fmt.Printf("\n| size | line | tablelab /s | p50 | floor /s | p50 | tablelab of floor | 10× azurite-mem /s | of floor |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, size := range sizes {
			for _, l := range lines {
				a, ok1 := find(l.name, size, "tablelab")
				f, ok2 := find(l.name, size, "floor")
				if !ok1 || !ok2 || f.ops == 0 {
					continue
				}
				need, needOf := "", ""
				if l.writes {
					// A sequential write line: its target is the fsync
					// bound, not 10× Azurite.
					need, needOf = "(bound)", "n/a"
					if fsyncBound > 0 {
						needOf = fmt.Sprintf("floor is %.2f of the bound", f.throughput()*fsyncBound.Seconds())
					}
				} else if z, ok := find(l.name, size, "azurite-memory"); ok && z.ops > 0 {
					need = fmt.Sprintf("%.0f", 10*z.throughput())
					needOf = fmt.Sprintf("%.2f", 10*z.throughput()/f.throughput())
				}
				fmt.Printf("| %d | %s | %.0f | %s | %.0f | %s | %.2f | %s | %s |\n", size, l.name, a.throughput(), a.pct(0.5).Round(time.Microsecond), f.throughput(), f.pct(0.5).Round(time.Microsecond), a.throughput()/f.throughput(), need, needOf)
			}
		}
	}
	for _, size := range sizes {
		fmt.Printf("tablelab restart with %d entities loaded: %s\n", size, restart[size].Round(time.Millisecond))
	}
	for _, size := range sizes {
		if r, ok := find("insert c1", size, "tablelab"); ok && fsyncBound > 0 {
			bound := 1 / fsyncBound.Seconds()
			fmt.Printf("sequential durable inserts over HTTP at %d entities: %.0f/s, %.2f of the fsync bound (%.0f/s)\n", size, r.throughput(), r.throughput()/bound, bound)
		}
	}
	fmt.Printf("\nfsync bound: %.0f writes/s (1 KiB write + fdatasync = %s)\n", 1/fsyncBound.Seconds(), fsyncBound.Round(time.Microsecond))
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// measureFsync times a 1 KiB append + fdatasync on this disk: the bound on
// sequential durable writes.
func measureFsync(dir string) time.Duration {
	f, err := os.Create(filepath.Join(dir, "fsync-probe"))
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, 1024)
	const n = 500
	start := time.Now()
	for i := 0; i < n; i++ {
		_, _ = f.Write(buf)
		_ = fdatasync(f)
	}
	return time.Since(start) / n
}
