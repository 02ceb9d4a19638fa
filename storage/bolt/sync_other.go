//go:build !linux

package bolt

import "os"

// fdatasync flushes f; systems without fdatasync(2) in package syscall use fsync.
func fdatasync(f *os.File) error { return f.Sync() }
