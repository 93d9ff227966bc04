//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"io"
	"syscall/js"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
)

// partBytes is the most of a record or a snapshot one row holds: a
// Durable Object's SQLite refuses a value over 2 MB, and a batch may be
// 4 MiB.
const partBytes = 1 << 20

// sqlMedium is a durable.Medium on a Durable Object's SQLite storage
// (ctx.storage.sql), whose exec is synchronous: no callbacks, no waits.
//
// A record is the rows (seq, 0…n) of the log table, the last flagged; a
// snapshot, the rows of snap, with upto the last record it covers. The
// rows of one record are written in one turn of the object's event loop
// (Append never yields), which the runtime commits as one implicit
// transaction: a batch is stored whole or not at all. The runtime also
// holds every answer back until the writes before it are durable (the
// object's output gate), so Append's waiter has nothing left to wait for.
type sqlMedium struct {
	sql js.Value
	// log and snap are the names of its two tables.
	log, snap string
	durable.Ledger
}

// newSQLMedium returns the medium whose tables are called
// tablelab_log and tablelab_snap, with name between their words when it
// is not empty (tablelab_settings_log).
func newSQLMedium(sql js.Value, name string) (*sqlMedium, error) {
	pre := "tablelab_"
	if name != "" {
		pre += name + "_"
	}
	m := &sqlMedium{sql: sql, log: pre + "log", snap: pre + "snap"}
	_, err := m.exec("CREATE TABLE IF NOT EXISTS " + m.log + " (seq INTEGER NOT NULL, part INTEGER NOT NULL, last INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (seq, part))")
	if err == nil {
		_, err = m.exec("CREATE TABLE IF NOT EXISTS " + m.snap + " (part INTEGER PRIMARY KEY, upto INTEGER NOT NULL, data BLOB NOT NULL)")
	}
	return m, err
}

// exec runs one statement and returns its rows. An exception thrown by
// the runtime (a full disk, a value too large) is an error here, not a
// panic.
func (m *sqlMedium) exec(query string, args ...any) (rows js.Value, err error) {
	return execSQL(m.sql, query, args...)
}

// execSQL runs one statement on sql and returns its rows.
func execSQL(sql js.Value, query string, args ...any) (rows js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(js.Error); ok {
				err = errors.New("durable object storage: " + e.Error())
				return
			}
			panic(p)
		}
	}()
	return sql.Call("exec", append([]any{query}, args...)...).Call("toArray"), nil
}

func sqlBlob(b []byte) js.Value {
	a := uint8ArrayClass.New(len(b))
	js.CopyBytesToJS(a, b)
	return a.Get("buffer")
}

func goBytes(v js.Value) []byte {
	a := uint8ArrayClass.New(v)
	b := make([]byte, a.Length())
	js.CopyBytesToGo(b, a)
	return b
}

func (m *sqlMedium) Replay(load func(io.Reader, engine.Place) error, apply func([]byte, engine.Place) error) error {
	rows, err := m.exec("SELECT upto, data FROM " + m.snap + " ORDER BY part")
	if err != nil {
		return err
	}
	var upto uint64
	var snapBytes, logBytes int64
	if n := rows.Length(); n > 0 {
		var snap bytes.Buffer
		for i := range n {
			row := rows.Index(i)
			upto = uint64(row.Get("upto").Float())
			snap.Write(goBytes(row.Get("data")))
		}
		snapBytes = int64(snap.Len())
		if err := load(&snap, engine.Place{}); err != nil {
			return err
		}
	}
	seq := upto
	rows, err = m.exec("SELECT seq, last, data FROM "+m.log+" WHERE seq > ? ORDER BY seq, part", upto)
	if err != nil {
		return err
	}
	var rec []byte
	for i, n := 0, rows.Length(); i < n; i++ {
		row := rows.Index(i)
		rec = append(rec, goBytes(row.Get("data"))...)
		if row.Get("last").Int() == 0 {
			continue
		}
		seq = uint64(row.Get("seq").Float())
		logBytes += int64(len(rec))
		if err := apply(rec, engine.Place{}); err != nil {
			return err
		}
		rec = rec[:0]
	}
	m.Restored(snapBytes, logBytes, seq)
	return nil
}

type doneWaiter struct{ err error }

func (w doneWaiter) Wait() error { return w.err }

func (m *sqlMedium) Append(rec []byte) engine.Waiter {
	return doneWaiter{m.Ledger.Append(len(rec), func(seq uint64) error {
		for part := 0; ; part++ {
			chunk := rec[:min(len(rec), partBytes)]
			rest := rec[len(chunk):]
			last := 0
			if len(rest) == 0 {
				last = 1
			}
			if _, err := m.exec("INSERT INTO "+m.log+" (seq, part, last, data) VALUES (?, ?, ?, ?)", seq, part, last, sqlBlob(chunk)); err != nil {
				return err
			}
			if last == 1 {
				return nil
			}
			rec = rest
		}
	})}
}

// BeginSnapshot's Write replaces the snapshot and drops the records it
// covers, all in one turn of the event loop, so one implicit
// transaction.
func (m *sqlMedium) BeginSnapshot() (durable.Snapshot, error) {
	return m.Ledger.BeginSnapshot(func(b []byte, upto uint64) error {
		if _, err := m.exec("DELETE FROM " + m.snap); err != nil {
			return err
		}
		for part := 0; len(b) > 0 || part == 0; part++ {
			chunk := b[:min(len(b), partBytes)]
			b = b[len(chunk):]
			if _, err := m.exec("INSERT INTO "+m.snap+" (part, upto, data) VALUES (?, ?, ?)", part, upto, sqlBlob(chunk)); err != nil {
				return err
			}
		}
		_, err := m.exec("DELETE FROM "+m.log+" WHERE seq <= ?", upto)
		return err
	})
}

func (m *sqlMedium) Close() error { return nil }

// sqlStorage is an object's storage on its storage.sql: its media, and
// its keyed values in the table tablelab_kv, ordered as bytes (SQLite's
// BINARY collation), which is the order of keys in the engine.
type sqlStorage struct {
	sql   js.Value
	ready bool
}

func (s *sqlStorage) exec(query string, args ...any) (js.Value, error) {
	if !s.ready {
		if _, err := execSQL(s.sql, "CREATE TABLE IF NOT EXISTS tablelab_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID"); err != nil {
			return js.Value{}, err
		}
		s.ready = true
	}
	return execSQL(s.sql, query, args...)
}

func (s *sqlStorage) medium(name string) (durable.Medium, error) { return newSQLMedium(s.sql, name) }

func (s *sqlStorage) get(key string) (string, bool, error) {
	rows, err := s.exec("SELECT v FROM tablelab_kv WHERE k = ?", key)
	if err != nil || rows.Length() == 0 {
		return "", false, err
	}
	return rows.Index(0).Get("v").String(), true, nil
}

func (s *sqlStorage) put(key, value string) error {
	_, err := s.exec("INSERT INTO tablelab_kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", key, value)
	return err
}

func (s *sqlStorage) del(key string) error {
	_, err := s.exec("DELETE FROM tablelab_kv WHERE k = ?", key)
	return err
}

func (s *sqlStorage) scan(prefix, from string, limit int) ([]pair, error) {
	rows, err := s.exec("SELECT k, v FROM tablelab_kv WHERE k >= ? AND k < ? ORDER BY k LIMIT ?", prefix+from, prefixEnd(prefix), limit)
	if err != nil {
		return nil, err
	}
	out := make([]pair, rows.Length())
	for i := range out {
		row := rows.Index(i)
		out[i] = pair{row.Get("k").String(), row.Get("v").String()}
	}
	return out, nil
}

// wipe drops the tables of the object's main store and its values
// (a partition has no others).
func (s *sqlStorage) wipe() error {
	for _, t := range []string{"tablelab_log", "tablelab_snap", "tablelab_kv"} {
		if _, err := execSQL(s.sql, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	s.ready = false
	return nil
}
