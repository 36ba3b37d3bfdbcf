package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"spillscope/retention/imagecost"
)

// ErrImage reports image bytes that cannot be stored.
var ErrImage = errors.New("sessions: unreadable image")

// ErrAttachmentStore reports an attachment store that could not be written.
var ErrAttachmentStore = errors.New("sessions: attachment store")

// StoreOptions says how StoreAttachment treats bytes it cannot recognise.
type StoreOptions struct {
	// MediaType is the type the source declared for the bytes. The type the
	// bytes' signature says always wins; the declared one names the media
	// type and extension only of unrecognised bytes kept with KeepUnknown.
	MediaType string
	// KeepUnknown stores bytes that are not an image imagecost recognises,
	// as <sha256>.<declared subtype> or <sha256>.bin, instead of refusing
	// them. The indexer keeps them so every recorded image block has an
	// attachment to point at, even one the window cannot show.
	KeepUnknown bool
}

// StoreAttachment writes data, the bytes of one image, into the
// content-addressed store dir as <sha256>.<ext>, where ext is the format
// imagecost sniffs (png, jpeg, gif, webp, bmp, tiff). It returns what the
// bytes are and the file's path.
//
// The file is written once: when it already exists nothing is rewritten, and
// a new file appears whole (a temporary file renamed into place), so readers
// never see part of an image and concurrent writers of the same bytes all
// succeed. dir is created (0755) when missing; a caller wanting a private
// folder creates it first. Bytes imagecost does not recognise are an error
// wrapping ErrImage unless opts.KeepUnknown is set.
func StoreAttachment(dir string, data []byte, opts StoreOptions) (Attachment, string, error) {
	if dir == "" {
		return Attachment{}, "", fmt.Errorf("%w: no folder given", ErrAttachmentStore)
	}
	if len(data) == 0 {
		return Attachment{}, "", fmt.Errorf("%w: no bytes", ErrImage)
	}
	sum := sha256.Sum256(data)
	// Sniffing reads the header only; the bound is imagecost's own, so a
	// hostile header cannot make the decoder walk a huge buffer.
	info, err := imagecost.Sniff(data[:min(len(data), imagecost.MaxHeaderBytes)])
	a, err := describe(hex.EncodeToString(sum[:]), int64(len(data)), info, err, opts)
	if err != nil {
		return Attachment{}, "", err
	}
	dst := filepath.Join(dir, a.SHA256+"."+a.Ext)
	if err := writeOnce(dir, dst, data); err != nil {
		return Attachment{}, "", err
	}
	return a, dst, nil
}

// describe names stored bytes from their digest, size and what sniffing
// their header found: the one rule for an attachment's media type and
// extension, whether its bytes were held or streamed.
func describe(sha string, size int64, info imagecost.Info, sniffErr error, opts StoreOptions) (Attachment, error) {
	a := Attachment{SHA256: sha, MediaType: opts.MediaType, Bytes: size, Ext: "bin"}
	switch {
	case sniffErr == nil:
		a.Width, a.Height = info.Width, info.Height
		if info.MediaType != "" {
			a.MediaType = info.MediaType
		}
		if info.Format != "" {
			a.Ext = info.Format
		}
	case !opts.KeepUnknown:
		return Attachment{}, fmt.Errorf("%w: %w", ErrImage, sniffErr)
	default:
		// The declared subtype (untrusted) names the file only when it is
		// a short plain token: it can then neither leave the folder, fake
		// a second extension, nor carry a character a file system treats
		// specially (":", NUL, spaces).
		if _, sub, ok := strings.Cut(a.MediaType, "/"); ok && safeSubtype(sub) {
			a.Ext = sub
		}
	}
	return a, nil
}

// StoreAttachmentFrom stores the bytes r yields as StoreAttachment stores a
// slice, without holding them: they are written to a temporary file in dir
// while they are hashed, the header is sniffed from that file, and the file
// is renamed to <sha256>.<ext> (or dropped when that file exists already).
// The indexer stores a large inline image this way, straight from its
// base64, so a 50 MB screenshot costs a copy buffer, not 37 MB of bytes.
// An error reading r (bad base64) stores nothing.
func StoreAttachmentFrom(dir string, r io.Reader, opts StoreOptions) (Attachment, string, error) {
	if dir == "" {
		return Attachment{}, "", fmt.Errorf("%w: no folder given", ErrAttachmentStore)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Attachment{}, "", fmt.Errorf("%w: %w", ErrAttachmentStore, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return Attachment{}, "", fmt.Errorf("%w: %w", ErrAttachmentStore, err)
	}
	published := false
	defer func() {
		if !published {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return Attachment{}, "", fmt.Errorf("%w: %w", ErrAttachmentStore, err)
		}
		return Attachment{}, "", fmt.Errorf("%w: %w", ErrImage, err)
	}
	if n == 0 {
		return Attachment{}, "", fmt.Errorf("%w: no bytes", ErrImage)
	}
	info, serr := imagecost.SniffFile(tmp.Name())
	a, err := describe(hex.EncodeToString(h.Sum(nil)), n, info, serr, opts)
	if err != nil {
		return Attachment{}, "", err
	}
	if err := tmp.Close(); err != nil {
		return Attachment{}, "", fmt.Errorf("%w: write %s: %w", ErrAttachmentStore, a.SHA256, err)
	}
	dst := filepath.Join(dir, a.SHA256+"."+a.Ext)
	if err := publish(tmp.Name(), dst); err != nil {
		return Attachment{}, "", err
	}
	published = true
	return a, dst, nil
}

// writeOnce puts data at dst unless a file is already there. The bytes go to
// a temporary file in the same folder first, so the rename that publishes
// them is atomic.
func writeOnce(dir, dst string, data []byte) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrAttachmentStore, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAttachmentStore, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%w: write %s: %w", ErrAttachmentStore, filepath.Base(dst), errors.Join(werr, cerr))
	}
	return publish(tmp.Name(), dst)
}

// publish renames a written temporary file to dst, or drops it when dst
// exists already (the same bytes, by their name).
func publish(tmp, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		os.Remove(tmp)
		return nil
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		// Another writer may have published the same bytes first (on
		// Windows a rename over an open file fails): theirs is as good.
		if st, serr := os.Stat(dst); serr == nil && st.Mode().IsRegular() {
			return nil
		}
		return fmt.Errorf("%w: write %s: %w", ErrAttachmentStore, filepath.Base(dst), err)
	}
	return nil
}

// safeSubtype accepts a media subtype usable as a file extension:
// [a-z0-9][a-z0-9+-]{0,15}.
func safeSubtype(sub string) bool {
	if sub == "" || len(sub) > 16 {
		return false
	}
	for i := 0; i < len(sub); i++ {
		c := sub[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '+' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// AttachmentFile is the stored attachment of image block `block` of an
// indexed result, judged now by the attachment store's file rule: the path
// comes from the index (the attachment's digest and extension), never from
// the result's text or the caller. A block without a stored attachment is
// ErrNotFound.
func (d *DB) AttachmentFile(ctx context.Context, resultID int64, block int) (FileCheck, error) {
	paths, err := d.attachmentPaths(ctx, resultID)
	if err != nil {
		return FileCheck{}, err
	}
	p, ok := paths[block]
	if !ok {
		return FileCheck{}, fmt.Errorf("%w: tool result %d has no stored image at block %d", ErrNotFound, resultID, block)
	}
	return AttachmentStoreRule(d.dataDir()).Check(p), nil
}
