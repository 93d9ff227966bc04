//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package osfile

import (
	"errors"
	"fmt"
	"os"
)

// Lock fails here: this system offers no lock the store relies on.
func Lock(f *os.File) error {
	return fmt.Errorf("osfile: locking %s: %w", f.Name(), errors.ErrUnsupported)
}
