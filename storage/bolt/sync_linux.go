package bolt

import (
	"errors"
	"os"
	"syscall"
)

// fdatasync flushes f's data, and only the metadata needed to read it back: for a write
// within a preallocated segment, the data alone.
func fdatasync(f *os.File) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var syncErr error
	if err := conn.Control(func(fd uintptr) {
		for {
			syncErr = syscall.Fdatasync(int(fd))
			if !errors.Is(syncErr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if syncErr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: syncErr}
	}
	return nil
}
