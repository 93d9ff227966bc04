//go:build !js

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A blob of a few hundred MiB goes through the server without the server
// ever holding it whole: the upload streams into chunk entities that
// settle into the data files, the download streams back out of them. The
// server's peak RSS stays far below the blob's size, and the blob is whole
// after a restart.
func TestLargeBlobThroughTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 256 MiB through a durable server")
	}
	const size = 256 << 20
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	s := startCrashServer(t, bin, data)
	defer s.kill()
	s.client.Timeout = 5 * time.Minute

	hdr := map[string]string{"x-ms-version": blobVersion}
	if code, body, _ := s.raw("PUT", s.blob+"/big?restype=container", nil, hdr); code != 201 {
		t.Fatalf("create container: %d %s", code, body)
	}
	want := sha256.New()
	body := io.TeeReader(io.LimitReader(&noise{r: rand.New(rand.NewPCG(1, 2))}, size), want)
	req, err := http.NewRequest("PUT", s.blob+"/big/film.bin", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("x-ms-version", blobVersion)
	req.Header.Set("x-ms-blob-type", "BlockBlob")
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("put blob: %d %s", resp.StatusCode, msg)
	}
	sum := want.Sum(nil)

	download := func(what string) {
		resp, err := s.client.Get(s.blob + "/big/film.bin")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got := sha256.New()
		n, err := io.Copy(got, resp.Body)
		if err != nil || resp.StatusCode != 200 || n != size || !bytes.Equal(got.Sum(nil), sum) {
			t.Fatalf("%s: status %d, %d bytes, %v, same bytes %v", what, resp.StatusCode, n, err, bytes.Equal(got.Sum(nil), sum))
		}
	}
	download("download")
	peak := peakRSS(t, s.cmd.Process.Pid)
	t.Logf("peak RSS %d MiB for a %d MiB blob", peak>>20, size>>20)
	if peak > size/2 {
		t.Errorf("the server's peak RSS was %d MiB for a %d MiB blob: it held the body in memory", peak>>20, size>>20)
	}
	s.kill()
	s = startCrashServer(t, bin, data)
	defer s.kill()
	s.client.Timeout = 5 * time.Minute
	download("download after a restart")
}

// noise is a reader of pseudo-random bytes, which no layer can compress.
type noise struct{ r *rand.Rand }

func (n *noise) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(n.r.Uint32())
	}
	return len(p), nil
}

// peakRSS reads the high-water mark of a process's resident memory.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skip("no /proc to read the server's memory from: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/pid/status")
	return 0
}
