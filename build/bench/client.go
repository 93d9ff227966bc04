package bench

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// client speaks HTTP/1.1 itself over kept-alive connections and signs
// requests with SharedKeyLite, as the SDKs do. The client shares the
// machine's two cores with the server it measures, so it is kept lean: no
// net/http client, no header map, one write per request. (A cache of
// signatures cost more than signing: point reads never repeat a
// resource.)
type client struct {
	key []byte
	mu  sync.Mutex
	// pools holds the kept-alive connections idle, by host: a
	// connection is only ever handed back for the host it leads to. (One
	// pool for all hosts once sent the interleaved run's floor slices to
	// tablelab, over the connection tablelab's slice had left in it.)
	pools map[string]chan *rawConn
}

// respHeader is a response's header fields as they came, a field a line
// ("Name: value\r\n"): one string, where a string per field made the
// client's work grow with the number of fields a server sends.
type respHeader string

// Get returns the value of the first field of that name, or "".
func (h respHeader) Get(name string) string {
	for rest := string(h); rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

type rawConn struct {
	c    net.Conn
	host string // as dialled: the pool it goes back to
	br   *bufio.Reader
	bw   *bufio.Writer
	buf  []byte // response bodies, reused
	hdr  []byte // response header fields, reused
}

func newClient() *client {
	key, _ := base64.StdEncoding.DecodeString(localserver.Key)
	return &client{key: key, pools: map[string]chan *rawConn{}}
}

// pool returns the idle connections to host.
func (c *client) pool(host string) chan *rawConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pools[host]
	if p == nil {
		p = make(chan *rawConn, 64)
		c.pools[host] = p
	}
	return p
}

// conn returns an idle connection to host, or a new one.
func (c *client) conn(host string) (*rawConn, error) {
	select {
	case rc := <-c.pool(host):
		return rc, nil
	default:
	}
	nc, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: nc, host: host, br: bufio.NewReaderSize(nc, 64<<10), bw: bufio.NewWriterSize(nc, 64<<10)}, nil
}

func (c *client) do(method, rawURL string, body []byte, hdr map[string]string) (int, []byte, respHeader, error) {
	var out []byte
	status, h, err := c.exchange(method, rawURL, body, hdr, func(b []byte) { out = bytes.Clone(b) })
	return status, out, h, err
}

// count makes a request and counts the entities of the page it answers.
// The body is read into the connection's buffer and counted there: a
// page is a megabyte, and a fresh one for each would cost the client, on
// the cores it shares with the server, a clear and a collection.
func (c *client) count(method, rawURL string) (int, int, respHeader, error) {
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
func (c *client) exchange(method, rawURL string, body []byte, hdr map[string]string, use func(body []byte)) (int, respHeader, error) {
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
		return 0, "", err
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
		return 0, "", err
	}
	status, respHdr, respBody, keep, err := readResponse(rc.br, rc.buf[:0], &rc.hdr)
	if err != nil {
		rc.c.Close()
		return 0, "", err
	}
	use(respBody)
	rc.buf = respBody[:0]
	if keep {
		select {
		case c.pool(rc.host) <- rc:
		default:
			rc.c.Close()
		}
	} else {
		rc.c.Close()
	}
	return status, respHdr, nil
}

// readResponse reads one HTTP/1.1 response: Content-Length or chunked.
// The body is appended to buf. The status line and the fields are read
// in place, in the reader's buffer, and the fields gathered in *fields, a
// buffer of the connection's: they cost one string per response.
func readResponse(br *bufio.Reader, buf []byte, fields *[]byte) (int, respHeader, []byte, bool, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, "", nil, false, err
	}
	_, rest, _ := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(rest, []byte(" "))
	status, err := strconv.Atoi(string(bytes.TrimSpace(code)))
	if err != nil {
		return 0, "", nil, false, fmt.Errorf("bad status line %q", line)
	}
	f := (*fields)[:0]
	length, chunked, keep := -1, false, true
	for {
		l, err := br.ReadSlice('\n')
		if err != nil {
			return 0, "", nil, false, err
		}
		if len(bytes.TrimSpace(l)) == 0 {
			break
		}
		f = append(f, l...)
		k, v, _ := bytes.Cut(l, []byte(":"))
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("content-length")):
			length, _ = strconv.Atoi(string(v))
		case bytes.EqualFold(k, []byte("transfer-encoding")):
			chunked = bytes.Contains(bytes.ToLower(v), []byte("chunked"))
		case bytes.EqualFold(k, []byte("connection")):
			keep = !bytes.EqualFold(v, []byte("close"))
		}
	}
	*fields = f
	h := respHeader(f)
	body := buf[:0]
	switch {
	case chunked:
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return 0, "", nil, false, err
			}
			n, err := strconv.ParseInt(strings.TrimSpace(strings.Split(l, ";")[0]), 16, 64)
			if err != nil {
				return 0, "", nil, false, err
			}
			if n == 0 {
				br.ReadString('\n')
				break
			}
			body = slices.Grow(body, int(n))
			chunk := body[len(body) : len(body)+int(n)]
			if _, err := io.ReadFull(br, chunk); err != nil {
				return 0, "", nil, false, err
			}
			body = body[:len(body)+int(n)]
			br.ReadString('\n')
		}
	case length >= 0:
		body = slices.Grow(body, length)[:length]
		if _, err := io.ReadFull(br, body); err != nil {
			return 0, "", nil, false, err
		}
	case status == 204 || status == 304:
	default:
		return 0, "", nil, false, fmt.Errorf("response without a length")
	}
	return status, h, body, keep, nil
}
