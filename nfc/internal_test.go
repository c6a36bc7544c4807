package nfc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebfe/scard"
)

func TestParseGetData(t *testing.T) {
	uid7 := []byte{0x04, 0xCA, 0x4A, 0x17, 0x5E, 0xC2, 0x3D}
	tests := []struct {
		name    string
		rsp     []byte
		wantLen int
		wantErr error
		wantMsg string
	}{
		{"7-byte UID", append(append([]byte(nil), uid7...), 0x90, 0x00), 7, nil, ""},
		{"4-byte UID", []byte{0x11, 0x22, 0x33, 0x44, 0x90, 0x00}, 4, nil, ""},
		{"10-byte UID", append(make([]byte, 10), 0x90, 0x00), 10, nil, ""},
		{"3 bytes", []byte{1, 2, 3, 0x90, 0x00}, 0, ErrBadTag, "3 bytes"},
		{"11 bytes", append(make([]byte, 11), 0x90, 0x00), 0, ErrBadTag, "11 bytes"},
		{"empty", nil, 0, ErrBadTag, "without a status word"},
		{"one byte", []byte{0x90}, 0, ErrBadTag, "without a status word"},
		{"6A81", []byte{0x6A, 0x81}, 0, ErrGetDataUnsupported, "6A81"},
		{"6D00", []byte{0x6D, 0x00}, 0, ErrGetDataUnsupported, "6D00"},
		{"6E00", []byte{0x6E, 0x00}, 0, ErrGetDataUnsupported, "6E00"},
		{"6300 with data", []byte{0xDE, 0xAD, 0xBE, 0xEF, 0x63, 0x00}, 0, ErrBadTag, "6300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid, err := parseGetData(tt.rsp)
			if tt.wantErr == nil {
				if err != nil || len(uid) != tt.wantLen {
					t.Fatalf("parseGetData = %d bytes, %v", len(uid), err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "nfc: ") {
				t.Fatalf("parseGetData error %v, want %v mentioning %q", err, tt.wantErr, tt.wantMsg)
			}
			if strings.Contains(strings.ToLower(err.Error()), "deadbeef") || strings.Contains(err.Error(), "DE AD") {
				t.Errorf("error %q echoes the answer's bytes", err)
			}
		})
	}
}

func TestRandomUID(t *testing.T) {
	for _, tt := range []struct {
		uid  []byte
		want bool
	}{
		{[]byte{0x08, 1, 2, 3}, true},
		{[]byte{0x04, 1, 2, 3}, false},
		{[]byte{0x08, 1, 2, 3, 4, 5, 6}, false}, // 7-byte UIDs are never random
	} {
		if got := RandomUID(tt.uid); got != tt.want {
			t.Errorf("RandomUID(% X) = %v", tt.uid, got)
		}
	}
}

func TestPickReader(t *testing.T) {
	contact := "Alcor Micro AU9540 00 00"
	acr := "ACS ACR122U PICC Interface 00 00"
	vpcd := "Virtual PCD 00 00"
	for _, tt := range []struct {
		want  string
		names []string
		pick  string
	}{
		{"", []string{contact, acr}, acr},
		{"", []string{contact, vpcd}, vpcd},
		{"", []string{contact}, contact},
		{"", nil, ""},
		{contact, []string{acr, contact}, contact},
		{"Missing 00 00", []string{acr}, ""},
	} {
		if got := pickReader(tt.want, tt.names); got != tt.pick {
			t.Errorf("pickReader(%q, %q) = %q, want %q", tt.want, tt.names, got, tt.pick)
		}
	}
	if looksContactless("Gemalto PC Twin Reader 00 00") {
		t.Error("a contact reader looks contactless")
	}
	if !looksContactless("Identiv uTrust 3700 F CL Reader 00 00") {
		t.Error("uTrust 3700 F CL not recognized")
	}
}

func TestKernelDriverDiagnosis(t *testing.T) {
	sysfs := t.TempDir()
	drv := filepath.Join(sysfs, "bus/usb/drivers/pn533_usb")
	if err := os.MkdirAll(drv, 0o755); err != nil {
		t.Fatal(err)
	}
	// Loaded but bound to nothing: not the problem.
	for _, f := range []string{"bind", "unbind", "module", "uevent", "new_id"} {
		os.WriteFile(filepath.Join(drv, f), nil, 0o644)
	}
	if err := noReaderError(sysfs, "", nil); !errors.Is(err, ErrNoReader) {
		t.Errorf("driver bound to nothing: %v", err)
	}
	if err := noReaderError(sysfs, "ACS ACR122U 00 00", []string{"Other 00 00"}); !errors.Is(err, ErrNoReader) ||
		!strings.Contains(err.Error(), `"Other 00 00"`) {
		t.Errorf("named reader missing: %v", err)
	}
	if err := os.Symlink("../../../../devices/pci0000:00/usb1/1-2/1-2:1.0", filepath.Join(drv, "1-2:1.0")); err != nil {
		t.Fatal(err)
	}
	err := noReaderError(sysfs, "", nil)
	if !errors.Is(err, ErrKernelDriver) || !strings.Contains(err.Error(), "modprobe -r pn533_usb pn533") ||
		!strings.Contains(err.Error(), "blacklist pn533_usb") {
		t.Errorf("driver bound: %v", err)
	}
}

func TestServiceErrors(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "pcscd.comm")
	t.Setenv("PCSCLITE_CSOCK_NAME", sock)
	for _, tt := range []struct {
		err          error
		establishing bool
		want         error
		fix          string
	}{
		{scard.ErrNoService, true, ErrNoService, "systemctl enable --now pcscd.socket"},
		{scard.ErrServiceStopped, false, ErrNoService, "systemctl enable --now pcscd.socket"},
		{scard.ErrCommError, true, ErrNoService, "systemctl enable --now pcscd.socket"}, // no socket: not polkit
		{scard.ErrNoAccess, true, ErrAccessDenied, "60-acbridge-pcsc.rules"},
		{scard.ErrInvalidHandle, false, ErrNoService, "restarted"},
	} {
		err := serviceError(tt.err, tt.establishing)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.fix) {
			t.Errorf("serviceError(%v) = %v, want %v naming %q", tt.err, err, tt.want, tt.fix)
		}
	}
	// pcscd is there but dropped us at once: polkit.
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := serviceError(scard.ErrCommError, true); !errors.Is(err, ErrAccessDenied) {
		t.Errorf("dropped at connect with the socket present: %v, want ErrAccessDenied", err)
	}
	if err := serviceError(scard.ErrCommError, false); !errors.Is(err, ErrNoService) {
		t.Errorf("dropped mid-session: %v, want ErrNoService", err)
	}
	if err := readError(scard.ErrRemovedCard); !errors.Is(err, ErrTagLost) {
		t.Errorf("readError(removed) = %v", err)
	}
	if err := readError(scard.ErrSecurityViolation); !errors.Is(err, ErrAccessDenied) {
		t.Errorf("readError(security) = %v", err)
	}
}

func TestStatusEqual(t *testing.T) {
	a := Status{State: StateNoReader, Err: errors.New("x")}
	if !a.equal(Status{State: StateNoReader, Err: errors.New("x")}) {
		t.Error("equal errors by text differ")
	}
	if a.equal(Status{State: StateNoReader}) || a.equal(Status{State: StateNoReader, Err: errors.New("y")}) {
		t.Error("different errors equal")
	}
	if (Status{State: StateReady, Reader: "a"}).equal(Status{State: StateReady, Reader: "b"}) {
		t.Error("different readers equal")
	}
	if StateArmed.String() != "armed" || State(9).String() != "State(9)" {
		t.Error("State.String")
	}
}
