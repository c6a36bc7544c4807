package ndef_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/protocol"
)

var uid7 = []byte{0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66}

var allowHA = &ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{ndeftest.HAPrefix}}

// read2 is a Type 2 tag's READ as a driver hands it to ReadType2.
func read2(t *ndeftest.Type2) ndef.ReadPages {
	return func(page byte) ([]byte, error) {
		b, ok := t.Read(page)
		if !ok {
			return nil, ndef.ErrRefused
		}
		return b, nil
	}
}

func TestType2HomeAssistantTag(t *testing.T) {
	uri := ndeftest.HAPrefix + "5f0ba1c6-7e5c-4c2a-9d3a-8d0c4f1e2b3a"
	msg, err := ndef.ReadType2(read2(ndeftest.Tag(uid7, uri)))
	if err != nil {
		t.Fatal(err)
	}
	if want := ndeftest.URIMessage(uri); string(msg) != string(want) {
		t.Fatalf("message % X, want % X", msg, want)
	}
	obj, err := allowHA.Object(msg)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(msg)
	want := protocol.Object{ObjectRef: uri, Carrier: "ndef", Assurance: "unverifiedTag", PayloadSHA256: hex.EncodeToString(sum[:])}
	if obj != want {
		t.Fatalf("object %+v, want %+v", obj, want)
	}
}

func TestType2LongMessageOverManyPages(t *testing.T) {
	uri := ndeftest.HAPrefix + strings.Repeat("a", 400) // 3-byte TLV length, 27 reads
	msg, err := ndef.ReadType2(read2(ndeftest.Image(ndeftest.NTAG216, uid7, ndeftest.NDEFTLV(ndeftest.Record(0xC1, "U", append([]byte{0x02}, uri[len("https://www."):]...))))))
	if err != nil {
		t.Fatal(err)
	}
	if obj, err := allowHA.Object(msg); err != nil || obj.ObjectRef != uri {
		t.Fatalf("object %q, %v", obj.ObjectRef, err)
	}
}

func TestType2Broken(t *testing.T) {
	blank := ndeftest.Image(ndeftest.NTAG213, uid7, nil)
	blank.Mem[12] = 0 // no capability container
	empty := ndeftest.Image(ndeftest.NTAG213, uid7, []byte{0x03, 0x00, 0xFE})
	for _, c := range []struct {
		name string
		tag  *ndeftest.Type2
		want error
	}{
		{"over-long message", ndeftest.OverLong(uid7), ndef.ErrMalformed},
		{"broken TLV", ndeftest.BrokenTLV(uid7), ndef.ErrMalformed},
		{"lying CC", ndeftest.LyingCC(uid7), ndef.ErrMalformed},
		{"no CC", blank, ndef.ErrNoNDEF},
		{"empty NDEF TLV", empty, ndef.ErrNoNDEF},
		{"not Type 2", &ndeftest.Type2{Mem: make([]byte, 8)}, ndef.ErrNoNDEF},
	} {
		msg, err := ndef.ReadType2(read2(c.tag))
		if !errors.Is(err, c.want) || msg != nil {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestType2ReadErrorIsTheDrivers(t *testing.T) {
	lost := errors.New("tag left the field")
	tag := ndeftest.Tag(uid7, ndeftest.HAPrefix+strings.Repeat("b", 100))
	n := 0
	_, err := ndef.ReadType2(func(page byte) ([]byte, error) {
		if n++; n == 3 {
			return nil, lost
		}
		return read2(tag)(page)
	})
	if !errors.Is(err, lost) {
		t.Fatalf("err %v, want the driver's", err)
	}
}

func TestType4(t *testing.T) {
	uri := "https://museum.example/exhibit/42"
	app := &ndeftest.Type4{Msg: ndeftest.URIMessage(uri), MLe: 15}
	msg, err := ndef.ReadType4(tx(app))
	if err != nil {
		t.Fatal(err)
	}
	p := &ndef.Policy{Mode: ndef.ModeNDEFOnly, Allowed: []string{"https://museum.example/exhibit/"}}
	if obj, err := p.Object(msg); err != nil || obj.ObjectRef != uri || obj.Carrier != protocol.CarrierNDEF {
		t.Fatalf("object %+v, %v", obj, err)
	}
	for name, bad := range map[string]*ndeftest.Type4{
		"NLEN beyond the file": {Msg: ndeftest.URIMessage(uri), NLEN: 400},
		"empty":                {Msg: nil},
	} {
		bad.Reset()
		if _, err := ndef.ReadType4(tx(bad)); !errors.Is(err, ndef.ErrMalformed) && !errors.Is(err, ndef.ErrNoNDEF) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ndef.ReadType4(func([]byte) ([]byte, error) { return []byte{0x6A, 0x82}, nil }); !errors.Is(err, ndef.ErrNoNDEF) {
		t.Errorf("no application: %v", err)
	}
}

func tx(app *ndeftest.Type4) ndef.Transmit {
	return func(apdu []byte) ([]byte, error) { return app.Answer(apdu), nil }
}

func TestPolicy(t *testing.T) {
	p := &ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{"https://museum.example/exhibit/"}}
	for _, c := range []struct {
		name string
		msg  []byte
		want error
	}{
		{"other site", ndeftest.URIMessage("https://museum.example.evil/exhibit/1"), ndef.ErrNotAllowed},
		{"other path", ndeftest.URIMessage("https://museum.example/shop/1"), ndef.ErrNotAllowed},
		{"http", ndeftest.URIMessage("http://museum.example/exhibit/1"), ndef.ErrNotAllowed},
		{"space", ndeftest.URIMessage("https://museum.example/exhibit/a b"), ndef.ErrNotAllowed},
		{"text only", ndeftest.TextMessage("https://museum.example/exhibit/1"), ndef.ErrNotAllowed},
		{"chunked", ndeftest.Record(0xF1, "U", []byte{4, 'x'}), ndef.ErrMalformed},
		{"no ME", ndeftest.Record(0x91, "U", []byte{4, 'x'}), ndef.ErrMalformed},
		{"trailing bytes", append(ndeftest.URIMessage("https://museum.example/exhibit/1"), 0), ndef.ErrMalformed},
		{"payload past the end", ndeftest.URIMessage("https://museum.example/exhibit/1")[:10], ndef.ErrMalformed},
	} {
		if _, err := p.Object(c.msg); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		} else if strings.Contains(err.Error(), "museum") {
			t.Errorf("%s: the error names the reference: %v", c.name, err)
		}
	}
	for _, bad := range []ndef.Policy{
		{Mode: "ndef"},
		{Mode: ndef.ModeNDEFOnly},
		{Mode: ndef.ModeNDEFOnly, Allowed: []string{"https://museum.example"}},
		{Mode: ndef.ModeNDEFOnly, Allowed: []string{"http://museum.example/"}},
		{Mode: ndef.ModeNDEFOnly, Allowed: []string{"https://user@museum.example/"}},
	} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v passed the check", bad)
		}
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}

// FuzzNDEF feeds arbitrary bytes as a Type 2 tag's memory from page 3 on
// and as an NDEF message: no input may panic, exceed the bounds, or yield
// an object that is not an allowed, schema-valid reference.
func FuzzNDEF(f *testing.F) {
	for _, tag := range []*ndeftest.Type2{ndeftest.Tag(uid7, ndeftest.HAPrefix+"x"), ndeftest.OverLong(uid7), ndeftest.BrokenTLV(uid7), ndeftest.LyingCC(uid7)} {
		f.Add(tag.Mem[12:64])
	}
	f.Add(ndeftest.URIMessage(ndeftest.HAPrefix + "y"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := &ndeftest.Type2{Mem: append(make([]byte, 12), data...)}
		if msg, err := ndef.ReadType2(read2(mem)); err == nil {
			if len(msg) == 0 || len(msg) > ndef.MaxMessageLen {
				t.Fatalf("message of %d bytes", len(msg))
			}
			check(t, msg)
		}
		check(t, data)
		app := &ndeftest.Type4{Msg: data}
		if msg, err := ndef.ReadType4(tx(app)); err == nil && string(msg) != string(data) {
			t.Fatalf("Type 4 message differs from the file")
		}
	})
}

func check(t *testing.T, msg []byte) {
	obj, err := allowHA.Object(msg)
	if err != nil {
		if !errors.Is(err, ndef.ErrMalformed) && !errors.Is(err, ndef.ErrNoNDEF) && !errors.Is(err, ndef.ErrNotAllowed) {
			t.Fatalf("unclassified error %v", err)
		}
		return
	}
	if !strings.HasPrefix(obj.ObjectRef, ndeftest.HAPrefix) || !protocol.ValidObjectRef(obj.ObjectRef) || obj.Carrier != "ndef" || obj.Assurance != "unverifiedTag" {
		t.Fatalf("object %+v", obj)
	}
}
