package nfc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ebfe/scard"
)

// Status words that mean "this reader has no GET DATA" (PC/SC part 3,
// 3.2.2.1.3: 6A81 function not supported; 6D00 / 6E00 come from readers that
// pass the pseudo-APDU through to the tag, which does not know it).
const (
	swOK           = 0x9000
	swFuncNotSupp  = 0x6A81
	swINSNotSupp   = 0x6D00
	swCLANotSupp   = 0x6E00
	minUIDLen      = 4
	maxUIDLen      = 10
	randomUIDFirst = 0x08 // ISO/IEC 14443-3, 6.4.4: UID0 = 08h means random
)

// serviceError maps a PC/SC error that ends a context to an operator-grade
// error naming the fix. establishing says the error came from
// SCardEstablishContext, where a dropped connection means polkit.
func serviceError(err error, establishing bool) error {
	var se scard.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("nfc: %w", err)
	}
	switch se {
	case scard.ErrNoService, scard.ErrServiceStopped:
		return fmt.Errorf("%w (%v)", ErrNoService, se)
	case scard.ErrCommError:
		// pcsc-lite drops a client that polkit rejects right after it
		// connects, which the client sees as a communication error.
		if establishing && socketExists() {
			return fmt.Errorf("%w (%v: pcscd closed the connection)", ErrAccessDenied, se)
		}
		return fmt.Errorf("%w (%v: lost the connection)", ErrNoService, se)
	case scard.ErrNoAccess, scard.ErrSecurityViolation:
		return fmt.Errorf("%w (%v)", ErrAccessDenied, se)
	case scard.ErrInvalidHandle:
		return fmt.Errorf("%w (pcscd restarted: %v)", ErrNoService, se)
	}
	return fmt.Errorf("nfc: pcscd: %w", se)
}

// establishError marks an error from SCardEstablishContext.
type establishError struct{ err error }

func (e *establishError) Error() string { return e.err.Error() }
func (e *establishError) Unwrap() error { return e.err }

// contextEnding reports whether err means the PC/SC context is gone and
// must be re-established (pcscd stopped, restarted or crashed).
func contextEnding(err error) bool {
	switch err {
	case scard.ErrNoService, scard.ErrServiceStopped, scard.ErrInvalidHandle,
		scard.ErrCommError, scard.ErrInternalError, scard.ErrNoMemory,
		scard.ErrUnknownError, scard.ErrShutdown, scard.ErrNoAccess:
		return true
	}
	return false
}

// pcscSocket is where pcsc-lite's client library connects (overridable with
// PCSCLITE_CSOCK_NAME, as in the library).
func pcscSocket() string {
	if s := os.Getenv("PCSCLITE_CSOCK_NAME"); s != "" {
		return s
	}
	return "/run/pcscd/pcscd.comm"
}

func socketExists() bool {
	_, err := os.Stat(pcscSocket())
	return err == nil
}

// kernelDriverHolds reports whether the kernel pn533_usb driver is bound to
// a USB interface: then pcscd's CCID driver cannot claim that reader.
func kernelDriverHolds(sysfs string) bool {
	for _, drv := range []string{"pn533_usb"} {
		ents, err := os.ReadDir(filepath.Join(sysfs, "bus/usb/drivers", drv))
		if err != nil {
			continue
		}
		for _, e := range ents {
			// Bound interfaces appear as links named bus-port:config.interface.
			if strings.Contains(e.Name(), ":") {
				return true
			}
		}
	}
	return false
}

// noReaderError explains why no reader is usable.
func noReaderError(sysfs, want string, have []string) error {
	if kernelDriverHolds(sysfs) {
		return ErrKernelDriver
	}
	if want != "" {
		return fmt.Errorf("%w: reader %q is not connected (connected: %s)", ErrNoReader, want, quoteList(have))
	}
	return ErrNoReader
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// readError maps an error from connecting to or talking to the tag.
func readError(err error) error {
	switch err {
	case scard.ErrRemovedCard, scard.ErrNoSmartcard, scard.ErrResetCard,
		scard.ErrUnpoweredCard, scard.ErrUnresponsiveCard,
		// pcscd's answer when the tag left the field during GET DATA.
		scard.ErrNotTransacted:
		return fmt.Errorf("%w (%v)", ErrTagLost, err)
	case scard.ErrSharingViolation:
		return fmt.Errorf("nfc: another program holds the reader exclusively; close it (%w)", err)
	case scard.ErrSecurityViolation, scard.ErrNoAccess:
		return fmt.Errorf("%w (%v)", ErrAccessDenied, err)
	}
	return fmt.Errorf("nfc: reading the tag: %w", err)
}
