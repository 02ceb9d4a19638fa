package bolt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The write-ahead log is a directory of preallocated segment files (see the package
// documentation for the layout). Segments are written by the committer only; the
// checkpointer moves the segments whose frames are all in the B+tree back to the spares,
// under Log.walMu.

const (
	// segmentHeaderSize is the size of a segment's header: magic, generation, CRC.
	segmentHeaderSize = 32
	// frameHeaderSize is the size of a frame's header: payload length, CRC, generation and
	// three resource versions.
	frameHeaderSize = 48
	// frameAlign is the alignment of frames in a segment, so that a scan for frames after a
	// corrupt one need only look at aligned offsets.
	frameAlign = 8
	// segmentSuffix names segment files in the WAL directory.
	segmentSuffix = ".seg"
)

// segmentMagic starts every segment header.
var segmentMagic = []byte("apikitwl")

// castagnoli is the CRC32C table of frames and segment headers.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorruptWAL reports a write-ahead log that lost a frame that is not at its tail: a
// frame that does not check, followed by a valid frame that is not yet in the B+tree, or
// a break in the chain of frames. Open refuses such a log instead of dropping the frames
// that follow the damage.
var ErrCorruptWAL = errors.New("corrupt write-ahead log")

// walFile is what the write-ahead log does with a segment file. Segments are opened
// through an openFile, which is osOpenFile outside tests; tests pass one whose files
// fail as a full disk or a failing device would.
type walFile interface {
	io.Reader // recovery reads a whole segment
	io.WriterAt
	// Truncate sizes a sparse segment (Options.NoSync).
	Truncate(size int64) error
	// Sync flushes the data and the metadata of a new segment.
	Sync() error
	// Datasync flushes the data of a frame: fdatasync(2).
	Datasync() error
	Close() error
}

// openFile opens a segment file as os.OpenFile does.
type openFile func(name string, flag int, perm os.FileMode) (walFile, error)

// osFile is a segment file on the operating system's file system.
type osFile struct{ *os.File }

func (f osFile) Datasync() error { return fdatasync(f.File) }

// osOpenFile opens segment files with os.OpenFile.
func osOpenFile(name string, flag int, perm os.FileMode) (walFile, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// segment is one preallocated file of the write-ahead log.
type segment struct {
	f    walFile
	name string
	size int64 // preallocated size; appends never grow the file
	gen  uint64
	off  int64  // where the next frame goes
	last uint64 // resource version of the last frame written in this generation, 0 if none
	// firstGen is the generation of the valid frame at the start of the segment, if
	// recovery found one: the header's, or a later one if a crash before the first
	// frame's sync kept the frame but not the header that went with it. Either was handed
	// out and must not be handed out again.
	firstGen uint64
}

// wal is the write-ahead log's directory and segments.
type wal struct {
	dir     string
	noSync  bool
	segSize int64
	open    openFile

	cur     *segment // the segment frames are appended to; committer only
	nextGen uint64   // generation of the next segment the committer starts; committer only

	// Guarded by Log.walMu.
	full     []*segment // segments with frames, oldest first, other than cur
	spares   []*segment // segments whose frames (if any) are all in the B+tree
	nextSlot int        // number in the name of the next segment file created
}

// walFrame is a frame found by recovery.
type walFrame struct {
	seg                     *segment
	off                     int64
	prevRV, firstRV, lastRV uint64
	payload                 []byte
}

// segmentName is the file name of the segment in slot n.
func segmentName(n int) string { return fmt.Sprintf("%08d%s", n, segmentSuffix) }

// openWAL opens the write-ahead log directory dir (creating it when it does not exist)
// and reads every frame of every segment. It returns the frames above checkpointed, the
// resource version the B+tree holds, in log order after checking that they continue one
// another from checkpointed: a torn frame at the tail (never acknowledged) ends the log,
// and anything lost before the tail fails with ErrCorruptWAL. Every segment is returned
// as a spare: the caller applies the frames to the B+tree before writing new ones.
func openWAL(dir string, segSize int64, noSync bool, checkpointed uint64, open openFile) (*wal, []walFrame, error) {
	w := &wal{dir: dir, noSync: noSync, segSize: segSize, open: open, nextGen: 1}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("write-ahead log: %w", err)
		}
		if !noSync {
			if err := syncDir(filepath.Dir(dir)); err != nil {
				return nil, nil, fmt.Errorf("write-ahead log: %w", err)
			}
		}
		return w, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("write-ahead log: %w", err)
	}

	var frames []walFrame
	ok := false
	defer func() {
		if !ok {
			w.close()
		}
	}()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, segmentSuffix) || !e.Type().IsRegular() {
			continue
		}
		var slot int
		if _, err := fmt.Sscanf(name, "%08d"+segmentSuffix, &slot); err != nil || segmentName(slot) != name {
			continue
		}
		w.nextSlot = max(w.nextSlot, slot+1)
		seg, found, err := readSegment(open, filepath.Join(dir, name), checkpointed)
		if err != nil {
			return nil, nil, err
		}
		w.spares = append(w.spares, seg)
		w.nextGen = max(w.nextGen, seg.gen+1, seg.firstGen+1)
		frames = append(frames, found...)
	}
	slices.SortFunc(frames, compareFrames)
	live, err := chainFrames(dir, frames, checkpointed)
	if err != nil {
		return nil, nil, err
	}
	// Spares are reused in generation order, the oldest content first.
	slices.SortFunc(w.spares, func(a, b *segment) int { return cmp.Compare(a.gen, b.gen) })
	ok = true
	return w, live, nil
}

// compareFrames orders frames as the log does: by generation, then by offset (and never
// interleaves two files).
func compareFrames(a, b walFrame) int {
	if c := cmp.Compare(a.seg.gen, b.seg.gen); c != 0 {
		return c
	}
	if c := strings.Compare(a.seg.name, b.seg.name); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

// chainFrames returns the frames above checkpointed after checking that they continue one
// another from it: each frame names the last resource version of the frame before it.
func chainFrames(dir string, frames []walFrame, checkpointed uint64) ([]walFrame, error) {
	prev := checkpointed
	var live []walFrame
	for _, fr := range frames {
		if fr.lastRV <= checkpointed && len(live) == 0 {
			continue // already in the B+tree
		}
		if fr.prevRV != prev || fr.firstRV <= fr.prevRV || fr.lastRV < fr.firstRV {
			return nil, fmt.Errorf("write-ahead log %s: %w: frame of resource versions %d to %d at offset %d of %s follows version %d, but the log is at %d: a frame before it is missing",
				dir, ErrCorruptWAL, fr.firstRV, fr.lastRV, fr.off, fr.seg.name, fr.prevRV, prev)
		}
		live = append(live, fr)
		prev = fr.lastRV
	}
	return live, nil
}

// readSegment opens the segment file at path and returns its frames of the generation
// its header names. Reading stops at the first frame that does not check: from there on
// the file holds zeros, frames of an earlier generation (a recycled segment) or a frame
// torn by a crash, which was never acknowledged. If a valid frame of this generation
// above checkpointed follows that point, a frame before the tail was lost, and
// readSegment fails with ErrCorruptWAL.
func readSegment(open openFile, path string, checkpointed uint64) (*segment, []walFrame, error) {
	f, err := open(path, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("write-ahead log: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("write-ahead log: read %s: %w", path, err)
	}
	seg := &segment{f: f, name: path, size: int64(len(data))}
	if len(data) >= segmentHeaderSize+frameHeaderSize {
		first := binary.BigEndian.Uint64(data[segmentHeaderSize+16:])
		if _, _, ok := parseFrame(data, segmentHeaderSize, first); ok {
			seg.firstGen = first
		}
	}
	gen, ok := parseSegmentHeader(data)
	if !ok {
		// A crash while a new segment was being prepared, or before its first frame was
		// synced: no frame was ever acknowledged in it.
		return seg, nil, nil
	}
	seg.gen = gen
	var frames []walFrame
	off := int64(segmentHeaderSize)
	for {
		fr, next, ok := parseFrame(data, off, gen)
		if !ok {
			break
		}
		fr.seg = seg
		frames = append(frames, fr)
		off = next
	}
	// The tail must hold no valid frame of this generation that is not yet in the B+tree.
	for scan := off + frameAlign; scan+frameHeaderSize <= int64(len(data)); scan += frameAlign {
		if binary.BigEndian.Uint64(data[scan+16:]) != gen {
			continue
		}
		if fr, _, ok := parseFrame(data, scan, gen); ok && fr.lastRV > checkpointed {
			_ = f.Close()
			return nil, nil, fmt.Errorf("write-ahead log %s: %w: the frame at offset %d does not check, but a valid frame of resource versions %d to %d follows at offset %d; refusing to open rather than lose it",
				path, ErrCorruptWAL, off, fr.firstRV, fr.lastRV, scan)
		}
	}
	if len(frames) > 0 {
		seg.last = frames[len(frames)-1].lastRV
	}
	seg.off = off
	return seg, frames, nil
}

// parseSegmentHeader returns the generation of a segment whose header checks.
func parseSegmentHeader(data []byte) (gen uint64, ok bool) {
	if len(data) < segmentHeaderSize || !bytes.Equal(data[:8], segmentMagic) {
		return 0, false
	}
	if crc32.Checksum(data[:16], castagnoli) != binary.BigEndian.Uint32(data[16:]) {
		return 0, false
	}
	return binary.BigEndian.Uint64(data[8:]), true
}

// appendSegmentHeader appends the header of a segment of generation gen to b.
func appendSegmentHeader(b []byte, gen uint64) []byte {
	start := len(b)
	b = append(b, segmentMagic...)
	b = binary.BigEndian.AppendUint64(b, gen)
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
	return append(b, make([]byte, segmentHeaderSize-(len(b)-start))...)
}

// parseFrame reads the frame at off if it is a valid frame of generation gen, and returns
// it with the offset of the next one.
func parseFrame(data []byte, off int64, gen uint64) (walFrame, int64, bool) {
	if off+frameHeaderSize > int64(len(data)) {
		return walFrame{}, 0, false
	}
	h := data[off : off+frameHeaderSize]
	n := binary.BigEndian.Uint64(h)
	if n == 0 || n > uint64(int64(len(data))-off-frameHeaderSize) || binary.BigEndian.Uint64(h[16:]) != gen {
		return walFrame{}, 0, false
	}
	end := off + frameHeaderSize + int64(n)
	crc := crc32.Update(crc32.Checksum(h[12:], castagnoli), castagnoli, data[off+frameHeaderSize:end])
	if crc != binary.BigEndian.Uint32(h[8:]) {
		return walFrame{}, 0, false
	}
	fr := walFrame{
		off:     off,
		prevRV:  binary.BigEndian.Uint64(h[24:]),
		firstRV: binary.BigEndian.Uint64(h[32:]),
		lastRV:  binary.BigEndian.Uint64(h[40:]),
		payload: data[off+frameHeaderSize : end],
	}
	return fr, alignFrame(end), true
}

func alignFrame(n int64) int64 { return (n + frameAlign - 1) / frameAlign * frameAlign }

// appendFramePayload appends the records of batch to b as a frame payload: per record the
// key's length and the key, then 0 for a delete or the encoded value's length plus one
// and the encoded value (resource version and value, as the state bucket keeps it).
func appendFramePayload(b []byte, batch []*Pending) []byte {
	for _, p := range batch {
		for _, r := range p.recs {
			b = binary.AppendUvarint(b, uint64(len(r.key)))
			b = append(b, r.key...)
			if r.val == nil {
				b = binary.AppendUvarint(b, 0)
				continue
			}
			b = binary.AppendUvarint(b, uint64(len(r.val))+1)
			b = append(b, r.val...)
		}
	}
	return b
}

// decodeFramePayload returns the records of a frame payload; they point into payload.
func decodeFramePayload(payload []byte) ([]encodedRecord, error) {
	var recs []encodedRecord
	for len(payload) > 0 {
		klen, n := binary.Uvarint(payload)
		if n <= 0 || klen == 0 || klen > uint64(len(payload)-n) {
			return nil, errors.New("malformed key")
		}
		payload = payload[n:]
		key := payload[:klen]
		payload = payload[klen:]
		vlen, n := binary.Uvarint(payload)
		if n <= 0 || (vlen > 0 && vlen-1 > uint64(len(payload)-n)) || (vlen > 0 && vlen-1 < rvSize) {
			return nil, fmt.Errorf("key %q: malformed value", key)
		}
		payload = payload[n:]
		r := encodedRecord{key: key}
		if vlen > 0 {
			r.val = payload[:vlen-1]
			payload = payload[vlen-1:]
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// sealFrame fills in the header of frame (whose payload follows frameHeaderSize bytes
// reserved for it) for generation gen, pads it to frameAlign and returns it.
func sealFrame(frame []byte, gen, prevRV, firstRV, lastRV uint64) []byte {
	h := frame[:frameHeaderSize]
	binary.BigEndian.PutUint64(h, uint64(len(frame)-frameHeaderSize))
	binary.BigEndian.PutUint32(h[12:], 0)
	binary.BigEndian.PutUint64(h[16:], gen)
	binary.BigEndian.PutUint64(h[24:], prevRV)
	binary.BigEndian.PutUint64(h[32:], firstRV)
	binary.BigEndian.PutUint64(h[40:], lastRV)
	binary.BigEndian.PutUint32(h[8:], crc32.Update(crc32.Checksum(h[12:], castagnoli), castagnoli, frame[frameHeaderSize:]))
	if pad := alignFrame(int64(len(frame))) - int64(len(frame)); pad > 0 {
		frame = append(frame, make([]byte, pad)...)
	}
	return frame
}

// append writes frame (sealed for no generation yet) durably: into the current segment
// if it fits, else into a spare or new segment that becomes the current one. take pops a
// spare under the Log's lock; retire hands the segment it leaves to the checkpointer.
func (w *wal) append(frame []byte, prevRV, firstRV, lastRV uint64, take func(need int64) (*segment, int), retire func(*segment)) error {
	need := alignFrame(int64(len(frame)))
	if w.cur == nil || w.cur.off+need > w.cur.size {
		seg, slot := take(segmentHeaderSize + need)
		if seg == nil {
			var err error
			if seg, err = w.createSegment(slot, max(w.segSize, segmentHeaderSize+need)); err != nil {
				return err
			}
		}
		seg.gen, seg.off, seg.last = w.nextGen, segmentHeaderSize, 0
		w.nextGen++
		// The header needs no sync of its own: the frame's fdatasync below makes both
		// durable, and a frame without its header was never acknowledged.
		if _, err := seg.f.WriteAt(appendSegmentHeader(nil, seg.gen), 0); err != nil {
			return fmt.Errorf("write-ahead log: %s: %w", seg.name, err)
		}
		if old := w.cur; old != nil {
			retire(old)
		}
		w.cur = seg
	}
	frame = sealFrame(frame, w.cur.gen, prevRV, firstRV, lastRV)
	if _, err := w.cur.f.WriteAt(frame, w.cur.off); err != nil {
		return fmt.Errorf("write-ahead log: %s: %w", w.cur.name, err)
	}
	if !w.noSync {
		if err := w.cur.f.Datasync(); err != nil {
			return fmt.Errorf("write-ahead log: %s: %w", w.cur.name, err)
		}
	}
	w.cur.off += int64(len(frame))
	w.cur.last = lastRV
	return nil
}

// createSegment creates the segment file of slot n, of size bytes of zeros written and
// synced once, so that appends within it change neither the file's size nor its block
// allocation and an fdatasync flushes data only. Without sync (tests) the file is only
// extended, sparse.
func (w *wal) createSegment(n int, size int64) (*segment, error) {
	path := filepath.Join(w.dir, segmentName(n))
	f, err := w.open(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write-ahead log: create segment: %w", err)
	}
	err = preallocate(f, size, w.noSync)
	if err == nil && !w.noSync {
		if err = f.Sync(); err == nil {
			err = syncDir(w.dir)
		}
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("write-ahead log: create segment %s: %w", path, err)
	}
	return &segment{f: f, name: path, size: size}, nil
}

// preallocate makes f size bytes of zeros.
func preallocate(f walFile, size int64, sparse bool) error {
	if sparse {
		return f.Truncate(size)
	}
	zeros := make([]byte, min(size, 1<<20))
	for off := int64(0); off < size; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), size-off)], off); err != nil {
			return err
		}
	}
	return nil
}

// close closes every segment file.
func (w *wal) close() error {
	var errs []error
	closeSeg := func(s *segment) {
		if err := s.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("write-ahead log: %w", err))
		}
	}
	if w.cur != nil {
		closeSeg(w.cur)
	}
	for _, s := range w.full {
		closeSeg(s)
	}
	for _, s := range w.spares {
		closeSeg(s)
	}
	w.cur, w.full, w.spares = nil, nil, nil
	return errors.Join(errs...)
}
