// Package pn532 drives an NXP PN532 NFC controller on a serial port (the
// PN532's HSU, "high speed UART", at 115200 baud 8N1), written from the
// NXP PN532 User Manual UM0701-02:
//
//   - section 6.2.1: normal information frames
//     00 00 FF LEN LCS TFI PD0…PDn DCS 00, with LEN+LCS = 0 and
//     TFI+PD0+…+PDn+DCS = 0 (mod 256), TFI D4 host to PN532 and D5 back;
//     the ACK frame 00 00 FF 00 FF 00, the NACK frame 00 00 FF FF 00 00
//     and the error frame (TFI 7F); extended frames are never needed here
//     and are refused;
//   - section 6.2.2: the dialogue: a command, the PN532's ACK, then its
//     answer; an ACK sent by the host aborts the command in progress, which
//     is how the driver resynchronizes after a garbled answer;
//   - section 7.2.11 (HSU wake-up): after power-on the PN532 sleeps; a 0x55
//     byte followed by zeros wakes it, and the first command must be
//     SAMConfiguration;
//   - section 7.2: GetFirmwareVersion (02), SAMConfiguration (14, normal
//     mode), RFConfiguration (32; item 01 switches the RF field, item 05
//     bounds MxRtyPassiveActivation so that a poll without a tag returns at
//     once instead of waiting forever), InListPassiveTarget (4A, MaxTg 1,
//     BrTy 00: 106 kbps type A) answering NbTg, Tg, SENS_RES, SEL_RES,
//     NFCIDLength and NFCID1.
//   - InDataExchange (section 7.3.8, command 0x40) to target 1 for the
//     tag's memory (poll.MemoryReader): Type 2 READ 0x30 of four pages,
//     or ISO 7816-4 APDUs to an ISO-DEP tag (SEL_RES bit 0x20; the PN532
//     sends RATS itself); status 0x01 is a tag gone, others its refusal.
//
// Every read is bounded: a frame is at most 262 bytes, garbage before a
// start code is skipped up to a limit, and each answer has a deadline; a
// lying LEN, a bad checksum or silence is a clear error wrapping
// poll.ErrChip, never a hang. *Chip implements poll.Chip (and
// poll.Pinger); package nfc/poll turns it into an nfc.Reader.
//
// Tests run against pn532test, an emulator of the board on a
// pseudo-terminal written from the same manual.
package pn532
