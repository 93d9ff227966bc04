package durabletest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
)

// replay returns what a medium restores: "S:<snapshot>" first, if there is
// one, then each record.
func replay(t *testing.T, m *Medium) []string {
	t.Helper()
	var got []string
	err := m.Replay(func(r io.Reader, _ engine.Place) error {
		b, err := io.ReadAll(r)
		got = append(got, "S:"+string(b))
		return err
	}, func(rec []byte, _ engine.Place) error {
		got = append(got, string(rec))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func check(t *testing.T, m *Medium, want string) {
	t.Helper()
	if got := strings.Join(replay(t, m), ","); got != want {
		t.Fatalf("restored %q, want %q", got, want)
	}
}

func TestCrashKeepsWhatWasAwaited(t *testing.T) {
	m := NewMedium()
	replay(t, m)
	a := m.Append([]byte("a"))
	m.Append([]byte("b"))
	c := m.Append([]byte("c"))
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	check(t, m.Crash(), "a")
	// Waiting for c makes b durable too, as a shared sync does.
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	m.Append([]byte("d")) // never awaited
	check(t, m.Crash(), "a,b,c")
	check(t, m.CrashAfter(2), "a,b")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	check(t, m.Crash(), "a,b,c,d")
}

func TestSnapshotReplacesWhatItCovers(t *testing.T) {
	m := NewMedium()
	replay(t, m)
	m.Append([]byte("a"))
	m.Append([]byte("b"))
	snap, err := m.BeginSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	c := m.Append([]byte("c")) // after the point: stays in the log
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// Until the snapshot is written, a crash restores the log.
	check(t, m.Crash(), "a,b,c")
	if err := snap.Write(func(w io.Writer, _ engine.Place) error {
		_, err := io.WriteString(w, "ab")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d := m.Append([]byte("d"))
	if err := c.Wait(); err != nil {
		t.Fatalf("a record durable before the snapshot: %v", err)
	}
	check(t, m.Crash(), "S:ab,c")
	if err := d.Wait(); err != nil {
		t.Fatal(err)
	}
	check(t, m.Crash(), "S:ab,c,d")
	if s := m.Sizes(); s.SnapshotBytes != 2 || s.LogBytes != 2 || m.Records() != 2 || m.Snapshots() != 1 {
		t.Fatalf("sizes %+v, %d records, %d snapshots", s, m.Records(), m.Snapshots())
	}
}

func TestFailureIsSticky(t *testing.T) {
	m := NewMedium()
	replay(t, m)
	if err := m.Append([]byte("a")).Wait(); err != nil {
		t.Fatal(err)
	}
	pending := m.Append([]byte("b"))
	disk := errors.New("disk gone")
	m.Fail(disk)
	if err := pending.Wait(); !errors.Is(err, disk) {
		t.Fatalf("a record pending at the failure: %v", err)
	}
	if err := m.Append([]byte("c")).Wait(); !errors.Is(err, disk) {
		t.Fatalf("a record appended after the failure: %v", err)
	}
	if _, err := m.BeginSnapshot(); !errors.Is(err, disk) {
		t.Fatalf("a snapshot after the failure: %v", err)
	}
	if err := m.Close(); !errors.Is(err, disk) {
		t.Fatalf("Close after the failure: %v", err)
	}
	check(t, m.Crash(), "a")
}

func TestAppendNeedsReplayAndOpen(t *testing.T) {
	if err := NewMedium().Append([]byte("a")).Wait(); err == nil {
		t.Fatal("an append before Replay succeeded")
	}
	m := NewMedium()
	replay(t, m)
	if err := m.Replay(nil, nil); err == nil {
		t.Fatal("a second Replay succeeded")
	}
	m.Close()
	if err := m.Append([]byte("a")).Wait(); err == nil {
		t.Fatal("an append after Close succeeded")
	}
}
