// Package imagecost prices an image on a provider's route: it reads an
// image's dimensions from its header alone and turns them into the tokens the
// route's provider charges, one documented calculator per route.
//
// The format of an image is decided by its bytes' signature and nothing else:
// a PNG saved as notes.txt is a PNG, and a text file named shot.png is not an
// image. A declared media type that disagrees with the bytes is a diagnostic
// (see Contradicts), never a reason to believe the declaration.
//
// Headers are untrusted input. Every decoder here reads a bounded prefix, a
// header that lies or stops early is an error (never a panic), and dimensions
// outside MaxSide / MaxPixels are rejected rather than priced.
package imagecost

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"os"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// Limits on what a header may claim. No provider accepts an image anywhere
// near these sizes (Anthropic rejects sides over 8000 px, OpenAI over 20 MB
// files), but long screenshots legitimately exceed 8000 px on one side, so the
// bound is generous: it exists to turn absurd or hostile headers into errors
// before any arithmetic multiplies them.
const (
	// MaxSide is the largest width or height accepted, in pixels.
	MaxSide = 32768
	// MaxPixels is the largest width*height accepted (256 megapixels).
	MaxPixels = 1 << 28
	// MaxHeaderBytes bounds how much of a stream SniffReader, SniffFile and
	// SniffBase64 read. JPEG puts its frame header (SOF) after every APPn
	// segment, and cameras write EXIF thumbnails and ICC profiles there (each
	// segment is at most 64 KiB, but there may be many); TIFF may place its
	// first IFD anywhere. 8 MiB covers every real file we have seen while
	// keeping a hostile stream from being read to its end.
	MaxHeaderBytes = 8 << 20
)

// Format names reported in Info.Format.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatGIF  = "gif"
	FormatWebP = "webp"
	FormatBMP  = "bmp"
	FormatTIFF = "tiff"
)

// Errors returned by the sniffers; each is wrapped with context.
var (
	// ErrNotImage reports bytes whose signature is not one of the supported
	// image formats (PNG, JPEG, GIF, WebP, BMP, TIFF).
	ErrNotImage = errors.New("imagecost: not a supported image (unrecognised signature)")
	// ErrHeader reports a recognised signature followed by a header that is
	// truncated, malformed or unsupported by the decoder.
	ErrHeader = errors.New("imagecost: unreadable image header")
	// ErrDimensions reports a header whose width or height is zero or beyond
	// MaxSide / MaxPixels.
	ErrDimensions = errors.New("imagecost: image dimensions out of range")
	// ErrBase64 reports image data that is not valid base64.
	ErrBase64 = errors.New("imagecost: invalid base64 image data")
)

// Info is what the header of an image says about it.
type Info struct {
	// Format is one of the Format* names, decided by the signature.
	Format string `json:"format"`
	// MediaType is the IANA media type of Format (image/png, ...).
	MediaType string `json:"mediaType"`
	// Width and Height are in pixels, both within (0, MaxSide].
	Width  int `json:"width"`
	Height int `json:"height"`
}

// signatureLen is how many leading bytes detect() needs: a BMP is told from
// text that happens to start with "BM" by the DIB header size at offset 14.
const signatureLen = 18

type format struct {
	name, mediaType string
	decode          func(io.Reader) (image.Config, error)
}

var formats = map[string]format{
	FormatPNG:  {FormatPNG, "image/png", png.DecodeConfig},
	FormatJPEG: {FormatJPEG, "image/jpeg", jpeg.DecodeConfig},
	FormatGIF:  {FormatGIF, "image/gif", gif.DecodeConfig},
	FormatWebP: {FormatWebP, "image/webp", webp.DecodeConfig},
	FormatBMP:  {FormatBMP, "image/bmp", bmp.DecodeConfig},
	FormatTIFF: {FormatTIFF, "image/tiff", tiff.DecodeConfig},
}

// bmpHeaderSizes are the DIB header sizes BMP writers use (OS/2 core, INFO,
// V2 to V5); "BM" alone is too common at the start of text to mean BMP.
var bmpHeaderSizes = map[uint32]bool{12: true, 16: true, 40: true, 52: true, 56: true, 64: true, 108: true, 124: true}

// detect names the format whose signature prefix opens, or "" for none.
func detect(prefix []byte) string {
	switch {
	case bytes.HasPrefix(prefix, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(prefix, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG
	case bytes.HasPrefix(prefix, []byte("GIF87a")), bytes.HasPrefix(prefix, []byte("GIF89a")):
		return FormatGIF
	case len(prefix) >= 12 && string(prefix[0:4]) == "RIFF" && string(prefix[8:12]) == "WEBP":
		return FormatWebP
	case bytes.HasPrefix(prefix, []byte("BM")) && len(prefix) >= 18 && bmpHeaderSizes[binary.LittleEndian.Uint32(prefix[14:18])]:
		return FormatBMP
	case bytes.HasPrefix(prefix, []byte("II*\x00")), bytes.HasPrefix(prefix, []byte("MM\x00*")):
		return FormatTIFF
	}
	return ""
}

// Sniff reads the format and dimensions of the image whose leading bytes are
// header. header may be the whole file or only its start; a start too short
// to hold the dimensions is ErrHeader.
func Sniff(header []byte) (Info, error) {
	name := detect(header)
	if name == "" {
		return Info{}, ErrNotImage
	}
	// bytes.Reader is an io.ReaderAt, so the TIFF decoder reads in place
	// instead of buffering a copy.
	return decodeConfig(formats[name], bytes.NewReader(header))
}

// SniffReader reads the format and dimensions of the image at the start of r.
// It reads at most MaxHeaderBytes, in 4 KiB steps, and usually one step: the
// decoders stop once the header is parsed. A header the decoders do not
// support (arithmetic-coded or 12-bit JPEG, 16-bit or RLE BMP, ...) is
// ErrHeader, like a malformed one.
func SniffReader(r io.Reader) (Info, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxHeaderBytes), 4096)
	prefix, err := br.Peek(signatureLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return Info{}, fmt.Errorf("%w: reading signature: %w", ErrHeader, err)
	}
	name := detect(prefix)
	if name == "" {
		return Info{}, ErrNotImage
	}
	return decodeConfig(formats[name], br)
}

// SniffFile reads the format and dimensions of the image file at path,
// reading only its header. Errors name the path.
func SniffFile(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("imagecost: %w", err)
	}
	defer f.Close()
	info, err := sniffFile(f)
	if err != nil {
		return Info{}, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

func sniffFile(f *os.File) (Info, error) {
	var sig [signatureLen]byte
	n, err := f.ReadAt(sig[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Info{}, fmt.Errorf("%w: reading signature: %w", ErrHeader, err)
	}
	if detect(sig[:n]) == FormatTIFF {
		// TIFF writers often put the directory after the pixels; reading at
		// its offset instead of streaming up to it keeps the read small.
		return decodeConfig(formats[FormatTIFF], io.NewSectionReader(f, 0, MaxHeaderBytes))
	}
	return SniffReader(f)
}

// SniffBase64 reads the format and dimensions of base64-encoded image data,
// decoding only the prefix the header needs (a few KiB for most formats, at
// most MaxHeaderBytes). It accepts the standard and the URL-safe alphabet,
// with or without padding, ASCII whitespace anywhere (MIME line breaks) and an
// optional "data:...;base64," prefix. Characters past the decoded prefix are
// not checked: the price depends only on the header, and checking the rest
// would mean reading all of it.
func SniffBase64(data string) (Info, error) {
	r, err := Base64Reader(data)
	if err != nil {
		return Info{}, err
	}
	src := r.(*b64Source)
	info, err := SniffReader(src)
	if src.err != nil {
		// A base64 fault explains a header error better than the header
		// decoder's view of the bytes it was cut off from.
		return Info{}, src.err
	}
	return info, err
}

// b64Source reads through the base64 decoder and words its faults as
// ErrBase64, remembering the first so SniffBase64 can report invalid base64
// as such rather than as a truncated header.
type b64Source struct {
	r   io.Reader
	err error
}

func (s *b64Source) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			s.err = fmt.Errorf("%w: bad character or length near offset %d", ErrBase64, int64(corrupt))
		} else {
			s.err = fmt.Errorf("%w: %w", ErrBase64, err)
		}
		return n, s.err
	}
	return n, err
}

// b64Filter streams a base64 string to the decoder without copying it:
// whitespace is dropped, the URL-safe alphabet is mapped to the standard one
// and the first '=' ends the data, so one unpadded decoder reads every
// variant. Anything else passes through for the decoder to reject.
type b64Filter struct {
	s string
	i int
}

func (r *b64Filter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.s) {
		c := r.s[r.i]
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			r.i++
			continue
		case '=':
			r.i = len(r.s)
			continue
		case '-':
			c = '+'
		case '_':
			c = '/'
		}
		r.i++
		p[n] = c
		n++
	}
	if n == 0 && r.i >= len(r.s) {
		return 0, io.EOF
	}
	return n, nil
}

func decodeConfig(f format, r io.Reader) (info Info, err error) {
	// The decoders are expected to return errors on bad input, but they are
	// third-party parsers fed hostile bytes; a panic there must not take the
	// caller down.
	defer func() {
		if p := recover(); p != nil {
			info, err = Info{}, fmt.Errorf("%w: %s decoder failed: %v", ErrHeader, f.name, p)
		}
	}()
	cfg, err := f.decode(r)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return Info{}, fmt.Errorf("%w: %s header truncated", ErrHeader, f.name)
		}
		return Info{}, fmt.Errorf("%w: %s: %w", ErrHeader, f.name, err)
	}
	if err := CheckDimensions(cfg.Width, cfg.Height); err != nil {
		return Info{}, fmt.Errorf("%s: %w", f.name, err)
	}
	return Info{Format: f.name, MediaType: f.mediaType, Width: cfg.Width, Height: cfg.Height}, nil
}

// CheckDimensions reports ErrDimensions unless both sides are positive, at
// most MaxSide, and their product at most MaxPixels.
func CheckDimensions(width, height int) error {
	switch {
	case width <= 0 || height <= 0:
		return fmt.Errorf("%w: %dx%d has an empty side", ErrDimensions, width, height)
	case width > MaxSide || height > MaxSide:
		return fmt.Errorf("%w: %dx%d exceeds the %d px side limit", ErrDimensions, width, height, MaxSide)
	case int64(width)*int64(height) > MaxPixels:
		return fmt.Errorf("%w: %dx%d exceeds the %d pixel limit", ErrDimensions, width, height, MaxPixels)
	}
	return nil
}

// mediaAliases maps media types seen in the wild to the registered name.
var mediaAliases = map[string]string{
	"image/jpg":           "image/jpeg",
	"image/pjpeg":         "image/jpeg",
	"image/x-png":         "image/png",
	"image/x-ms-bmp":      "image/bmp",
	"image/x-bmp":         "image/bmp",
	"image/x-windows-bmp": "image/bmp",
	"image/tif":           "image/tiff",
	"image/x-tiff":        "image/tiff",
}

// NormalizeMediaType lower-cases a declared media type, drops parameters and
// maps common aliases (image/jpg, image/x-ms-bmp, ...) to the registered name.
func NormalizeMediaType(declared string) string {
	declared = strings.TrimSpace(declared)
	if mt, _, err := mime.ParseMediaType(declared); err == nil {
		declared = mt
	} else {
		declared = strings.ToLower(declared)
	}
	if alias, ok := mediaAliases[declared]; ok {
		return alias
	}
	return declared
}

// Contradicts reports whether a declared media type (a block's mimeType)
// names something other than what the bytes turned out to be. An empty
// declaration contradicts nothing. It is a diagnostic only: the price always
// follows the sniffed format.
func Contradicts(declared string, info Info) bool {
	if strings.TrimSpace(declared) == "" || info.MediaType == "" {
		return false
	}
	return NormalizeMediaType(declared) != info.MediaType
}
