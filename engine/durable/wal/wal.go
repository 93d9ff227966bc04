//go:build !js

// Files, locks and fsync: not in the browser, where a store keeps its log
// in IndexedDB instead.

// Package wal is the crash-safe storage under tablelab's durable store: an
// append-only log of opaque records with a checksum each, group commit,
// and snapshots that compact the log without stopping writes.
//
// # On disk
//
// A directory holds a LOCK file (osfile.Lock: one process at a time), log
// segments log-<n>.wal and at most one snapshot snap-<n>.db. A snapshot
// numbered n holds the state of everything logged in segments below n;
// recovery loads it and replays segments n and up.
//
// A record is framed as
//
//	u32 length | u32 CRC-32C of the length bytes and the payload | payload
//
// (little-endian). A snapshot is "TLSNAPv1", the payload, then u64 payload
// length and u32 CRC-32C of the payload.
//
// # Durability
//
// Append copies a record into memory and returns at once; Commit.Wait
// blocks until it is written and synced with osfile.SyncData (fdatasync
// on Linux, F_FULLFSYNC on macOS, FlushFileBuffers on Windows). Whichever
// waiter finds no flush under way writes everything accumulated with one
// write and one sync, so concurrent writers share an fsync, and a lone
// writer pays exactly one, on its own thread.
//
// Recovery cuts a torn or corrupt tail of the newest segment at the last
// good record and says how many bytes it dropped; damage anywhere else is
// an error, never skipped.
//
// # Preallocation
//
// A segment grows ahead of its records by zero-filled chunks, and records
// overwrite those zeros. Appending to the end of a file makes every
// fdatasync also commit the file's new size and blocks to the filesystem
// journal; overwriting blocks that already exist leaves it only the data
// to flush, which makes a durable append markedly cheaper (the figures are
// in docs/architecture.md). Eight zero bytes are never a frame (the checksum of
// a zero length is not zero), so replay knows where the records end: at a
// zero header followed by nothing but zeros.
package wal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tablelab/tablelab/engine/durable/osfile"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaxRecord is the largest record accepted; a frame claiming more is
// corruption, not a reason to allocate.
const MaxRecord = 64 << 20

// preallocBytes is the chunk a segment grows by, in zeros, ahead of its
// records.
const preallocBytes = 1 << 20

const (
	headerSize    = 8
	snapshotMagic = "TLSNAPv1"
	trailerSize   = 12
)

// Options configure a Log.
type Options struct {
	// Logf reports what recovery did; nil discards.
	Logf func(format string, args ...any)
	// NoSync skips fsync; for tests of other things only.
	NoSync bool
}

// Stats describe the log's size.
type Stats struct {
	// LogBytes is the size of the log since the last snapshot.
	LogBytes int64
	// SnapshotBytes is the size of the last snapshot.
	SnapshotBytes int64
	// Records counts the records appended since Open.
	Records int64
}

// Log is an open log directory.
type Log struct {
	dir  string
	opts Options
	lock *os.File

	mu       sync.Mutex
	cond     *sync.Cond
	f        *os.File // the newest segment
	segment  uint64   // its number
	off      int64    // where its next record goes
	room     int64    // the end of its zero-filled space
	pending  []byte
	spare    []byte
	zeros    []byte // a chunk of zeros to grow segments by, written, never changed
	appended uint64 // records handed to Append
	synced   uint64 // records known durable
	flushing bool
	err      error // sticky: the first write or sync failure
	closed   bool
	replayed bool
	end      int64 // where replay found the newest segment's records end
	stats    Stats
}

// Pos is where bytes lie in the directory: a file, named by FileID, and an
// offset in it. Replay reports where each record's payload and the
// snapshot's payload lie, so that a reader may keep a Pos in memory in
// place of the bytes and read them back later through OpenFile.
type Pos struct {
	File uint32
	Off  int64
}

// SegmentID and SnapshotID name the files of a directory in a Pos: the
// number of a segment or snapshot, and which of the two it is.
func SegmentID(n uint64) uint32  { return uint32(n << 1) }
func SnapshotID(n uint64) uint32 { return uint32(n<<1 | 1) }

// FileNumber is the number of the segment or snapshot id names. A
// snapshot numbered n replaces every file numbered below n.
func FileNumber(id uint32) uint64 { return uint64(id >> 1) }

// maxFileNumber is the largest segment or snapshot number a directory may
// hold, so that a file's ID fits in 32 bits. A directory takes a new
// number per snapshot, and takes a snapshot no more often than its log
// doubles or grows by megabytes.
const maxFileNumber = 1<<31 - 1

func (l *Log) idPath(id uint32) string {
	if id&1 == 1 {
		return l.path("snap", FileNumber(id))
	}
	return l.path("log", FileNumber(id))
}

// OpenFile opens a segment or snapshot for reading. An open file stays
// readable after the log deletes it, until it is closed.
func (l *Log) OpenFile(id uint32) (*os.File, error) { return os.Open(l.idPath(id)) }

// Durable returns the end of what is known durable in the newest segment:
// every record before it is written and synced.
func (l *Log) Durable() Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Pos{File: SegmentID(l.segment), Off: l.off}
}

// ReadRecords reads the records of a segment from offset from, which must
// be the start of a record, up to offset to, calling fn with each payload
// and the offset of that payload. The payload is only valid during the
// call. It reads only what Durable has reported, so it never sees a
// record still being written.
func (l *Log) ReadRecords(id uint32, from, to int64, fn func(rec []byte, off int64) error) error {
	f, err := os.Open(l.idPath(id))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(f, from, to-from), 64<<10)
	var hdr [headerSize]byte
	var buf []byte
	for off := from; off < to; {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return fmt.Errorf("wal: reading %s at %d: %w", l.idPath(id), off, err)
		}
		size := binary.LittleEndian.Uint32(hdr[:4])
		if size > MaxRecord || int64(size) > to-off-headerSize {
			return fmt.Errorf("wal: %s: no record at offset %d", l.idPath(id), off)
		}
		if cap(buf) < int(size) {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("wal: reading %s at %d: %w", l.idPath(id), off, err)
		}
		if crc32.Update(crc32.Checksum(hdr[:4], castagnoli), castagnoli, buf) != binary.LittleEndian.Uint32(hdr[4:]) {
			return fmt.Errorf("wal: %s: a record with a bad checksum at offset %d", l.idPath(id), off)
		}
		if err := fn(buf, off+headerSize); err != nil {
			return err
		}
		off += headerSize + int64(size)
	}
	return nil
}

// Commit is a record on its way to disk.
type Commit struct {
	l *Log
	n uint64
}

// SnapshotPoint marks the place in the log a snapshot covers up to.
type SnapshotPoint struct {
	segment uint64 // the first segment the snapshot does not cover
}

// Open opens or creates the log in dir, taking its lock. A directory held
// by another Log, in this process or another, is refused.
func Open(dir string, opts Options) (*Log, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := osfile.Lock(lock); err != nil {
		lock.Close()
		if errors.Is(err, osfile.ErrLocked) {
			return nil, fmt.Errorf("wal: %s is in use by another process (its LOCK is held): %w", dir, err)
		}
		return nil, fmt.Errorf("wal: locking %s: %w", dir, err)
	}
	l := &Log{dir: dir, opts: opts, lock: lock, zeros: make([]byte, preallocBytes)}
	l.cond = sync.NewCond(&l.mu)
	return l, nil
}

func (l *Log) path(kind string, n uint64) string {
	ext := ".wal"
	if kind == "snap" {
		ext = ".db"
	}
	return filepath.Join(l.dir, fmt.Sprintf("%s-%016d%s", kind, n, ext))
}

// files lists the numbers of the directory's segments and snapshots.
func (l *Log) files() (segments, snapshots []uint64, err error) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "log-") && strings.HasSuffix(name, ".wal"):
			if n, err := strconv.ParseUint(name[4:len(name)-4], 10, 64); err == nil {
				segments = append(segments, n)
			}
		case strings.HasPrefix(name, "snap-") && strings.HasSuffix(name, ".db"):
			if n, err := strconv.ParseUint(name[5:len(name)-3], 10, 64); err == nil {
				snapshots = append(snapshots, n)
			}
		case strings.HasSuffix(name, ".tmp"):
			// A snapshot that was never finished.
			_ = os.Remove(filepath.Join(l.dir, name))
		}
	}
	sort.Slice(segments, func(i, j int) bool { return segments[i] < segments[j] })
	sort.Slice(snapshots, func(i, j int) bool { return snapshots[i] < snapshots[j] })
	return segments, snapshots, nil
}

// Replay feeds the newest snapshot, if any, to loadSnapshot and then each
// record logged after it to apply, in order, each with the Pos its payload
// starts at (a record's payload is only valid during the call). It must
// be called once, before Append.
func (l *Log) Replay(loadSnapshot func(r io.Reader, at Pos) error, apply func(rec []byte, at Pos) error) error {
	if l.replayed {
		return errors.New("wal: Replay called twice")
	}
	l.replayed = true
	segments, snapshots, err := l.files()
	if err != nil {
		return err
	}
	var base uint64 = 1
	if n := len(segments); n > 0 && segments[n-1] > maxFileNumber || len(snapshots) > 0 && snapshots[len(snapshots)-1] > maxFileNumber {
		return fmt.Errorf("wal: %s: file numbers past %d", l.dir, maxFileNumber)
	}
	if len(snapshots) > 0 {
		base = snapshots[len(snapshots)-1]
		size, err := l.loadSnapshot(base, loadSnapshot)
		if err != nil {
			return err
		}
		l.stats.SnapshotBytes = size
		for _, old := range snapshots[:len(snapshots)-1] {
			_ = os.Remove(l.path("snap", old))
		}
	}
	var live []uint64
	for _, s := range segments {
		if s < base {
			_ = os.Remove(l.path("log", s)) // covered by the snapshot
		} else {
			live = append(live, s)
		}
	}
	for i, s := range live {
		if i > 0 && s != live[i-1]+1 {
			return fmt.Errorf("wal: segment %d is missing", live[i-1]+1)
		}
		n, err := l.replaySegment(s, i == len(live)-1, apply)
		if err != nil {
			return err
		}
		l.stats.LogBytes += n
	}
	seg := base
	if len(live) > 0 {
		seg = live[len(live)-1]
	}
	f, err := os.OpenFile(l.path("log", seg), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if len(live) == 0 {
		if err := l.syncDir(); err != nil {
			f.Close()
			return err
		}
	}
	l.f, l.segment, l.off, l.room = f, seg, l.end, st.Size()
	return nil
}

func (l *Log) loadSnapshot(n uint64, load func(io.Reader, Pos) error) (int64, error) {
	f, err := os.Open(l.path("snap", n))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	bad := fmt.Errorf("wal: snapshot %s is damaged", l.path("snap", n))
	if size < int64(len(snapshotMagic)+trailerSize) {
		return 0, bad
	}
	var trailer [trailerSize]byte
	if _, err := f.ReadAt(trailer[:], size-trailerSize); err != nil {
		return 0, err
	}
	payload := int64(binary.LittleEndian.Uint64(trailer[:8]))
	if payload != size-int64(len(snapshotMagic))-trailerSize {
		return 0, bad
	}
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(f, magic); err != nil || string(magic) != snapshotMagic {
		return 0, bad
	}
	crc := crc32.New(castagnoli)
	r := io.TeeReader(io.LimitReader(bufio.NewReaderSize(f, 1<<20), payload), crc)
	if err := load(r, Pos{File: SnapshotID(n), Off: int64(len(snapshotMagic))}); err != nil {
		return 0, fmt.Errorf("wal: loading snapshot %d: %w", n, err)
	}
	// Whatever the loader did not read still counts toward the checksum.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return 0, err
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(trailer[8:]) {
		return 0, bad
	}
	return size, nil
}

// replaySegment applies a segment's records. A bad record in the newest
// segment ends the log there: the file is cut back to the last good
// record. Elsewhere it is an error.
func (l *Log) replaySegment(n uint64, newest bool, apply func([]byte, Pos) error) (int64, error) {
	path := l.path("log", n)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	var hdr [headerSize]byte
	buf := make([]byte, 0, 64<<10)
	l.end = 0
	for {
		reason := ""
		hdr = [headerSize]byte{}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			// The end, or the end of a preallocated tail that was cut
			// short of a header's length.
			if err == io.EOF || err == io.ErrUnexpectedEOF && hdr == [headerSize]byte{} {
				l.end = good
				return good, nil
			}
			reason = "a torn record header"
		} else if hdr == [headerSize]byte{} {
			// The preallocated tail, if nothing but zeros follows.
			zero, err := allZero(r)
			if err != nil {
				return 0, err
			}
			if zero {
				l.end = good
				return good, nil
			}
			reason = "bytes after a zero header"
		} else {
			size := binary.LittleEndian.Uint32(hdr[:4])
			if size > MaxRecord || int64(size) > st.Size()-good-headerSize {
				reason = "a record longer than the file"
			} else {
				if cap(buf) < int(size) {
					buf = make([]byte, size)
				}
				buf = buf[:size]
				if _, err := io.ReadFull(r, buf); err != nil {
					reason = "a torn record"
				} else if crc32.Update(crc32.Checksum(hdr[:4], castagnoli), castagnoli, buf) != binary.LittleEndian.Uint32(hdr[4:]) {
					reason = "a record with a bad checksum"
				} else {
					if err := apply(buf, Pos{File: SegmentID(n), Off: good + headerSize}); err != nil {
						return 0, fmt.Errorf("wal: %s: record at offset %d: %w", path, good, err)
					}
					good += headerSize + int64(size)
					continue
				}
			}
		}
		if !newest {
			return 0, fmt.Errorf("wal: %s: %s at offset %d, in a segment that is not the last", path, reason, good)
		}
		dropped := st.Size() - good
		if err := f.Truncate(good); err != nil {
			return 0, err
		}
		if err := osfile.SyncData(f); err != nil {
			return 0, err
		}
		l.opts.Logf("wal: %s ends in %s at offset %d: cut it there, dropping %d bytes", path, reason, good, dropped)
		l.end = good
		return good, nil
	}
}

// allZero reports whether r holds nothing but zero bytes to its end.
func allZero(r *bufio.Reader) (bool, error) {
	for {
		b, err := r.Peek(r.Buffered())
		for _, c := range b {
			if c != 0 {
				return false, nil
			}
		}
		if _, derr := r.Discard(len(b)); derr != nil {
			return false, derr
		}
		if err != nil {
			return false, err
		}
		if _, err := r.Peek(1); err == io.EOF {
			return true, nil
		} else if err != nil {
			return false, err
		}
	}
}

func (l *Log) syncDir() error {
	if l.opts.NoSync {
		return nil
	}
	return osfile.SyncDir(l.dir)
}

// Append adds a record to the log. It only copies the record into memory:
// call Wait on the result to know it is durable. Callers append in the
// order they commit, under a lock of their own.
func (l *Log) Append(rec []byte) *Commit {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil && (l.closed || l.f == nil) {
		l.err = errors.New("wal: append to a log that is closed or not replayed")
	}
	var hdr [headerSize]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(rec)))
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Update(crc32.Checksum(hdr[:4], castagnoli), castagnoli, rec))
	l.pending = append(l.pending, hdr[:]...)
	l.pending = append(l.pending, rec...)
	l.appended++
	l.stats.Records++
	l.cond.Broadcast()
	return &Commit{l: l, n: l.appended}
}

// Wait blocks until the record is durable, or returns the error that kept
// it from being so.
//
// Group commit without a flusher goroutine: the first waiter to find no
// flush under way writes and syncs everything pending — its own record
// and any others — while later waiters wait for it, and the next round
// is led by one of them. A lone writer thus syncs its own record with no
// hand-off between threads, which on this kind of machine costs as much
// as the fsync itself.
func (c *Commit) Wait() error {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.synced < c.n && l.err == nil {
		if !l.flushing && len(l.pending) > 0 {
			l.flushLocked()
			continue
		}
		l.cond.Wait()
	}
	if l.synced >= c.n {
		return nil
	}
	return l.err
}

// flushLocked writes and syncs everything pending. It is called with mu
// held and no flush under way; it releases mu for the I/O.
func (l *Log) flushLocked() {
	buf, target, f, off, room := l.pending, l.appended, l.f, l.off, l.room
	l.pending, l.spare = l.spare[:0], nil
	l.flushing = true
	l.mu.Unlock()

	var err error
	end := off + int64(len(buf))
	if end > room {
		// Grow the segment by zeros first; the sync below commits the new
		// size once for the whole chunk.
		grown := (end/preallocBytes + 1) * preallocBytes
		for err == nil && room < grown {
			n := min(grown-room, preallocBytes)
			_, err = f.WriteAt(l.zeros[:n], room)
			room += n
		}
	}
	if err == nil {
		_, err = f.WriteAt(buf, off)
	}
	if err == nil && !l.opts.NoSync {
		err = osfile.SyncData(f)
	}

	l.mu.Lock()
	l.flushing = false
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("wal: writing the log: %w", err)
	}
	if err == nil {
		l.off, l.room = end, room
		l.synced = target
		l.stats.LogBytes += int64(len(buf))
	}
	if cap(buf) <= 4<<20 {
		l.spare = buf[:0]
	}
	l.cond.Broadcast()
}

// BeginSnapshot starts a snapshot at the current end of the log. The
// caller holds its own write lock, so no Append runs meanwhile: every
// record appended before belongs to the snapshot, every one after goes to
// a new segment. It waits for the records already appended to reach the
// disk.
func (l *Log) BeginSnapshot() *SnapshotPoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	for (l.synced < l.appended || l.flushing) && l.err == nil && l.f != nil {
		if !l.flushing && len(l.pending) > 0 {
			l.flushLocked()
			continue
		}
		l.cond.Wait()
	}
	if l.err != nil || l.f == nil {
		return &SnapshotPoint{}
	}
	next := l.segment + 1
	if next > maxFileNumber {
		l.err = fmt.Errorf("wal: %s: file numbers past %d", l.dir, maxFileNumber)
		return &SnapshotPoint{}
	}
	f, err := os.OpenFile(l.path("log", next), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		err = l.syncDir()
	}
	if err != nil {
		l.err = fmt.Errorf("wal: starting a segment: %w", err)
		return &SnapshotPoint{}
	}
	_ = l.f.Close()
	l.f, l.segment, l.off, l.room = f, next, 0, 0
	l.stats.LogBytes = 0
	return &SnapshotPoint{segment: next}
}

// WriteSnapshot writes the state captured at p through write, makes it
// durable, and then deletes the segments and snapshot it replaces. A crash
// at any step leaves a directory that Replay restores. write is told the
// Pos its first byte will have in the finished snapshot.
func (l *Log) WriteSnapshot(p *SnapshotPoint, write func(w io.Writer, at Pos) error) error {
	if p == nil || p.segment == 0 {
		l.mu.Lock()
		err := l.err
		l.mu.Unlock()
		if err == nil {
			err = errors.New("wal: no snapshot point")
		}
		return err
	}
	final := l.path("snap", p.segment)
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	bw := bufio.NewWriterSize(f, 1<<20)
	crc := crc32.New(castagnoli)
	counter := &countWriter{w: io.MultiWriter(bw, crc)}
	_, err = bw.WriteString(snapshotMagic)
	if err == nil {
		err = write(counter, Pos{File: SnapshotID(p.segment), Off: int64(len(snapshotMagic))})
	}
	if err == nil {
		var trailer [trailerSize]byte
		binary.LittleEndian.PutUint64(trailer[:8], uint64(counter.n))
		binary.LittleEndian.PutUint32(trailer[8:], crc.Sum32())
		_, err = bw.Write(trailer[:])
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && !l.opts.NoSync {
		err = osfile.SyncData(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("wal: writing snapshot: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	if err := l.syncDir(); err != nil {
		return err
	}
	segments, snapshots, err := l.files()
	if err != nil {
		return err
	}
	for _, s := range snapshots {
		if s < p.segment {
			_ = os.Remove(l.path("snap", s))
		}
	}
	for _, s := range segments {
		if s < p.segment {
			_ = os.Remove(l.path("log", s))
		}
	}
	l.mu.Lock()
	l.stats.SnapshotBytes = int64(len(snapshotMagic)) + counter.n + trailerSize
	l.mu.Unlock()
	return l.syncDir()
}

type countWriter struct {
	w io.Writer
	n int64
}

// Write implements io.Writer, counting what passes.
func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Stats returns the log's sizes.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Close writes and syncs what is pending and releases
// the directory.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	for l.f != nil && l.err == nil && (l.flushing || len(l.pending) > 0) {
		if !l.flushing {
			l.flushLocked()
			continue
		}
		l.cond.Wait()
	}
	err := l.err
	if l.f != nil {
		if cerr := l.f.Close(); err == nil {
			err = cerr
		}
	}
	l.mu.Unlock()
	// Closing the LOCK file releases the lock.
	if cerr := l.lock.Close(); err == nil {
		err = cerr
	}
	return err
}
