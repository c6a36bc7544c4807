package ndef

import (
	"errors"
	"fmt"
)

// Bounds on what a tag may hand over. MaxMessageLen is above the largest
// Type 2 tag acbridge expects (NTAG216: 888 bytes of user memory) and far
// below what a Type 4 file may claim (32 KiB), so that a lying tag cannot
// make the reader loop for seconds.
const (
	MaxMessageLen = 4096
	MaxRecords    = 16
)

// Errors. A tag that carries no NDEF at all wraps ErrNoNDEF; a structure
// that breaks the specifications wraps ErrMalformed. Neither says anything
// about the bytes beyond offsets and lengths.
var (
	ErrNoNDEF    = errors.New("ndef: the tag carries no NDEF message")
	ErrMalformed = errors.New("ndef: malformed NDEF data")
)

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)
}

// TNF values (NDEF 1.0, 3.2.6).
const (
	TNFEmpty     = 0x00
	TNFWellKnown = 0x01
	TNFUnchanged = 0x06
	TNFReserved  = 0x07
)

// Record is one NDEF record; its slices alias the parsed message.
type Record struct {
	TNF     byte
	Type    []byte
	ID      []byte
	Payload []byte
}

// Record header flags (NDEF 1.0, 3.2.1 to 3.2.5).
const (
	flagMB = 0x80
	flagME = 0x40
	flagCF = 0x20
	flagSR = 0x10
	flagIL = 0x08
)

// Parse splits msg, one complete NDEF message, into its records. The first
// record must carry MB, the last ME and nothing may follow it; chunked
// records, the Unchanged and Reserved TNFs and more than MaxRecords records
// are refused.
func Parse(msg []byte) ([]Record, error) {
	if len(msg) == 0 {
		return nil, ErrNoNDEF
	}
	if len(msg) > MaxMessageLen {
		return nil, malformed("the message has %d bytes, more than %d", len(msg), MaxMessageLen)
	}
	var recs []Record
	off := 0
	for {
		if len(recs) == MaxRecords {
			return nil, malformed("more than %d records", MaxRecords)
		}
		r, n, last, err := parseRecord(msg[off:], len(recs) == 0)
		if err != nil {
			return nil, fmt.Errorf("record %d at offset %d: %w", len(recs)+1, off, err)
		}
		recs = append(recs, r)
		off += n
		if last {
			break
		}
		if off == len(msg) {
			return nil, malformed("the message ends without a record marked last (ME)")
		}
	}
	if off != len(msg) {
		return nil, malformed("%d bytes follow the last record", len(msg)-off)
	}
	return recs, nil
}

// parseRecord reads one record from b; n is its length.
func parseRecord(b []byte, first bool) (r Record, n int, last bool, err error) {
	if len(b) < 3 {
		return r, 0, false, malformed("a record header needs 3 bytes, %d remain", len(b))
	}
	h := b[0]
	switch {
	case first != (h&flagMB != 0):
		return r, 0, false, malformed("the message-begin flag (MB) is set on a record other than the first, or missing on the first")
	case h&flagCF != 0:
		return r, 0, false, malformed("chunked records are not accepted")
	}
	r.TNF = h & 0x07
	if r.TNF == TNFUnchanged || r.TNF == TNFReserved {
		return r, 0, false, malformed("type name format %d is not allowed outside chunks", r.TNF)
	}
	typeLen := int(b[1])
	off := 2
	var payLen int
	if h&flagSR != 0 {
		payLen = int(b[off])
		off++
	} else {
		if len(b) < off+4 {
			return r, 0, false, malformed("the payload length is cut off")
		}
		l := uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
		if l > MaxMessageLen {
			return r, 0, false, malformed("a payload of %d bytes exceeds the message bound", l)
		}
		payLen = int(l)
		off += 4
	}
	idLen := 0
	if h&flagIL != 0 {
		if len(b) < off+1 {
			return r, 0, false, malformed("the ID length is cut off")
		}
		idLen = int(b[off])
		off++
	}
	if r.TNF == TNFEmpty && (typeLen != 0 || idLen != 0 || payLen != 0) {
		return r, 0, false, malformed("an empty record has a type, ID or payload")
	}
	if r.TNF != TNFEmpty && typeLen == 0 && r.TNF == TNFWellKnown {
		return r, 0, false, malformed("a well-known record has no type")
	}
	end := off + typeLen + idLen + payLen
	if end > len(b) {
		return r, 0, false, malformed("the record claims %d bytes, %d remain", end, len(b))
	}
	r.Type = b[off : off+typeLen]
	off += typeLen
	r.ID = b[off : off+idLen]
	off += idLen
	r.Payload = b[off:end]
	return r, end, h&flagME != 0, nil
}

// uriPrefixes is the URI RTD identifier code table (URI RTD 1.0, 3.2.2).
var uriPrefixes = [...]string{
	"", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
	"ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://",
	"nfs://", "ftp://", "dav://", "news:", "telnet://", "imap:", "rtsp://",
	"urn:", "pop:", "sip:", "sips:", "tftp:", "btspp://", "btl2cap://",
	"btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
	"urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
}

// URI returns the URI a well-known "U" record names. ok is false for any
// other record, a reserved identifier code or an empty URI; the bytes are
// not checked further here (Policy does that).
func URI(r Record) (uri string, ok bool) {
	if r.TNF != TNFWellKnown || string(r.Type) != "U" || len(r.Payload) < 1 {
		return "", false
	}
	code := int(r.Payload[0])
	if code >= len(uriPrefixes) {
		return "", false
	}
	uri = uriPrefixes[code] + string(r.Payload[1:])
	return uri, uri != ""
}
