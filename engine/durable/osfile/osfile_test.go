package osfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func openLockFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestLockExcludesAnotherHandle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "LOCK")
	first := openLockFile(t, path)
	err := Lock(first)
	switch runtime.GOOS {
	case "darwin", "dragonfly", "freebsd", "linux", "netbsd", "openbsd", "windows":
		if err != nil {
			t.Fatalf("first lock: %v", err)
		}
	default:
		// No lock here (js/wasm among them): Lock must say so rather
		// than pretend that it excludes anyone.
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Lock on %s: %v, want an error wrapping errors.ErrUnsupported", runtime.GOOS, err)
		}
		return
	}
	second := openLockFile(t, path)
	if err := Lock(second); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock while the first is held: %v, want ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Lock(second); err != nil {
		t.Fatalf("lock after the holder closed its file: %v", err)
	}
}

func TestLockClosedFileFails(t *testing.T) {
	f := openLockFile(t, filepath.Join(t.TempDir(), "LOCK"))
	f.Close()
	err := Lock(f)
	if err == nil || errors.Is(err, ErrLocked) {
		t.Fatalf("lock on a closed file: %v, want an error other than ErrLocked", err)
	}
}

func TestSyncData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("durable"), 4096); err != nil {
		t.Fatal(err)
	}
	if err := SyncData(f); err != nil {
		t.Fatalf("SyncData: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4096+len("durable") || string(got[4096:]) != "durable" {
		t.Fatalf("read back %d bytes ending %q", len(got), got[max(0, len(got)-7):])
	}
	if err := SyncData(f); err == nil {
		t.Fatal("SyncData on a closed file succeeded")
	}
}

func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatalf("SyncDir: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
			t.Fatal("SyncDir of a missing directory succeeded")
		}
	}
}
