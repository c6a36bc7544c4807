// Package tagscan is the technician's scan loop behind `acbridge scan`: it
// arms a reader window after window and prints each identified tag as the
// 0.1 observation an agent would receive, checked against the receiver
// rules first, so the technician sees exactly what an agent would accept.
// Like every part of acbridge, it prints aliases only, never a UID.
package tagscan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// Options configure Run. Nil writers discard.
type Options struct {
	// Window is how long the reader stays armed for one tag.
	Window time.Duration
	// Once returns after the first identified tag, or the first window
	// that ends without one.
	Once bool
	// JSON prints each observation as one line of JSON instead of a table.
	JSON bool
	// Out receives only observations; Err progress and problems.
	Out, Err io.Writer
}

// ErrNoTag is returned (wrapped) with Once when no tag came in the window.
var ErrNoTag = nfc.ErrNoTag

// Run scans until ctx ends (nil, or ctx's error with Once) or, with Once,
// until the first tag (nil) or the first failure.
func Run(ctx context.Context, r nfc.Reader, o *Options) error {
	p := &printer{Options: *o}
	if p.Out == nil {
		p.Out = io.Discard
	}
	if p.Err == nil {
		p.Err = io.Discard
	}
	// A tag pulled away mid-read leaves the window open: say so and wait
	// for it to come back, as the daemon does.
	unread := &nfc.ScanOptions{OnUnread: func(err error) {
		fmt.Fprintf(p.Err, "%s (%v)\n", nfc.UnreadNotice, err)
	}}
	for {
		s, err := r.ScanWith(ctx, p.Window, unread)
		switch {
		case errors.Is(err, nfc.ErrNoTag):
			if p.Once {
				return noTagError(p.Window)
			}
			continue // re-arm
		case ctx.Err() != nil:
			if p.Once {
				return ctx.Err()
			}
			return nil
		case err != nil:
			if p.Once {
				return err
			}
			fmt.Fprintf(p.Err, "acbridge scan: %v\n", err)
			continue
		case s.Unidentifiable:
			fmt.Fprintln(p.Err, "tag presents a random UID (a phone or an emulated card): it cannot be identified and is not sent; tap a tag")
			continue
		}
		if err := p.print(s); err != nil {
			return err
		}
		if p.Once {
			return nil
		}
	}
}

type printer struct {
	Options
	n int
}

// print writes one observation, checked against the 0.1 rules first.
func (p *printer) print(s nfc.Scan) error {
	p.n++
	obj := s.Object
	obs := protocol.Observation{
		SchemaVersion: protocol.SchemaVersion,
		ObservationID: fmt.Sprintf("scan-%d", p.n),
		CapturedAt:    s.ReadyAt.UTC().Format(time.RFC3339),
		Intent:        "identify",
		Object:        &obj,
	}
	raw, err := json.Marshal(&obs)
	if err != nil {
		return err
	}
	if _, err := protocol.CheckObservationJSON(raw, []protocol.Modality{protocol.NFC}); err != nil {
		return fmt.Errorf("the observation does not pass the 0.1 checks: %w", err)
	}
	if s.Note != "" {
		fmt.Fprintf(p.Err, "note: %s\n", s.Note)
	}
	if p.JSON {
		_, err = fmt.Fprintf(p.Out, "%s\n", raw)
		return err
	}
	lat := s.ReadyAt.Sub(s.PresentAt)
	_, err = fmt.Fprintf(p.Out, "observationId  %s\nobjectRef      %s\ncarrier        %s\nassurance      %s\npayloadSha256  %s\nreader         %s\nlatency        %.2f ms (of which pcscd and reader %.2f ms)\n\n",
		obs.ObservationID, obj.ObjectRef, obj.Carrier, obj.Assurance, obj.PayloadSHA256, s.Reader,
		float64(lat.Microseconds())/1000, float64(s.ReaderTime.Microseconds())/1000)
	return err
}

// windowError is a sentinel's kind said in the caller's own words, so
// that the message does not repeat itself ("no tag tapped within 3s: nfc:
// no tag was tapped…") while errors.Is still matches the sentinel.
type windowError struct {
	msg string
	err error
}

func (e *windowError) Error() string { return e.msg }
func (e *windowError) Unwrap() error { return e.err }

func noTagError(window time.Duration) error {
	return &windowError{msg: fmt.Sprintf("no tag tapped within %v", window), err: ErrNoTag}
}
