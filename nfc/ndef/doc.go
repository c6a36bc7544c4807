// Package ndef reads NFC Data Exchange Format messages from tags and decides
// whether one names a portable object reference.
//
// It implements, with every length checked against the bytes present and
// the bounds below:
//   - NDEF records (NFC Forum NDEF Technical Specification 1.0, section 3.2:
//     the MB/ME/CF/SR/IL/TNF header, type, ID and payload lengths); chunked
//     records (CF) are refused, not reassembled;
//   - the URI record type (NFC Forum URI RTD 1.0, section 3.2.2: the
//     identifier code table 0x00 to 0x23);
//   - Type 2 Tag memory (NFC Forum Type 2 Tag Technical Specification 1.0,
//     section 6: the capability container in page 3 and the NULL, Lock
//     Control, Memory Control, NDEF Message, Proprietary and Terminator
//     TLVs from page 4): NTAG213/215/216 and MIFARE Ultralight;
//   - Type 4 Tag NDEF (NFC Forum Type 4 Tag Technical Specification 2.0,
//     section 5: SELECT of the NDEF Tag Application D2760000850101, the
//     capability container file E103 with its NDEF File Control TLV, then
//     the NDEF file's NLEN and message through READ BINARY).
//
// Written by hand: the one Go NDEF library of the field
// (github.com/hsanjuan/go-ndef) is LGPL-3.0 and unmaintained since 2020, and
// reads no tag memory (TLVs, capability containers). The parser is fuzzed
// (FuzzNDEF), and make test runs the fuzzer for a bounded time.
//
// Policy turns a message into the observation's object: only a URI record
// that starts with an allowed prefix and matches the contract's objectRef
// pattern becomes one, with carrier "ndef", assurance "unverifiedTag" and
// payloadSha256 over the exact message bytes. The reference is never
// fetched or opened (contract: "Never automatically fetch an HTTPS object
// reference").
package ndef
