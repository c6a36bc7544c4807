package nfc

import (
	"context"
	"errors"
	"strings"

	"github.com/ebfe/scard"
)

// pnpReader is pcsc-lite's pseudo-reader whose state changes when a reader
// is plugged or unplugged (PC/SC part 5, 3.1.7).
const pnpReader = `\\?PnP?\Notification`

// ReaderInfo describes one PC/SC reader for listings (acbridge devices).
type ReaderInfo struct {
	Name        string `json:"name"`
	Contactless bool   `json:"contactless"` // guessed from the name, or from a present tag's ATR
	TagPresent  bool   `json:"tagPresent"`
}

// ListReaders lists the PC/SC readers pcscd knows, without reading any tag.
// An empty list is not an error; pcscd being unreachable is, with the fix.
func ListReaders(ctx context.Context) ([]ReaderInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc, err := scard.EstablishContext()
	if err != nil {
		return nil, serviceError(err, true)
	}
	defer sc.Release()
	names, err := listReaders(sc)
	if err != nil {
		return nil, serviceError(err, false)
	}
	if len(names) == 0 {
		return nil, nil
	}
	states := make([]scard.ReaderState, len(names))
	for i, n := range names {
		states[i] = scard.ReaderState{Reader: n, CurrentState: scard.StateUnaware}
	}
	// A zero timeout returns the current states at once.
	if err := sc.GetStatusChange(states, 0); err != nil && !errors.Is(err, scard.ErrTimeout) {
		return nil, serviceError(err, false)
	}
	infos := make([]ReaderInfo, len(names))
	for i, n := range names {
		infos[i] = ReaderInfo{
			Name:        n,
			Contactless: looksContactless(n) || contactlessATR(states[i].Atr),
			TagPresent:  states[i].EventState&scard.StatePresent != 0,
		}
	}
	return infos, nil
}

// contactlessATR reports whether atr is one a PC/SC part 3 reader builds
// for a contactless tag (part 3, 3.1.3.2.3: 3B 8n 80 01 …): readers with
// plain CCID names (QEMU's, many OEM boards) say it only through the ATR.
func contactlessATR(atr []byte) bool {
	return len(atr) >= 4 && atr[0] == 0x3B && atr[1]&0xF0 == 0x80 && atr[2] == 0x80 && atr[3] == 0x01
}

// listReaders treats "no readers" as an empty list, which pcsc-lite reports
// as an error.
func listReaders(sc *scard.Context) ([]string, error) {
	names, err := sc.ListReaders()
	if errors.Is(err, scard.ErrNoReadersAvailable) {
		return nil, nil
	}
	return names, err
}

// contactlessMarks are name fragments of contactless readers: PC/SC names
// the slot "PICC" (proximity card) or "CL"; vpcd is a "PCD".
var contactlessMarks = []string{"picc", "contactless", "nfc", " cl ", "pcd", "acr122", "acr1252", "acr1255", "scl3711", "uTrust 37", "omnikey 5022", "omnikey 5427"}

func looksContactless(name string) bool {
	n := " " + strings.ToLower(name) + " "
	for _, m := range contactlessMarks {
		if strings.Contains(n, strings.ToLower(m)) {
			return true
		}
	}
	return false
}

// pickReader returns want if it is connected, else (want == "") the first
// contactless-looking reader, else the first reader; "" if none.
func pickReader(want string, names []string) string {
	if want != "" {
		for _, n := range names {
			if n == want {
				return n
			}
		}
		return ""
	}
	for _, n := range names {
		if looksContactless(n) {
			return n
		}
	}
	if len(names) > 0 {
		return names[0]
	}
	return ""
}
