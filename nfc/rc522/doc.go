// Package rc522 drives an NXP MFRC522 ("RC522" boards) on a Linux spidev
// port as a poll.Chip: the host polls it for ISO/IEC 14443-A tags and gets
// their UID (4, 7 or 10 bytes), which package nfc/poll turns into the keyed
// alias at once.
//
// It implements, from the MFRC522 datasheet (NXP, rev. 3.9):
//   - register access over SPI, section 8.1.2 (address byte
//     0x80|reg<<1 to read, reg<<1 to write; bursts on FIFODataReg);
//   - the chip check: VersionReg (section 9.3.4.8) is 0x91 or 0x92 on
//     genuine chips, 0x88 on the common FM17522 clone; 0x00 or 0xFF means
//     nothing answers on MISO (wiring, power or SPI not enabled);
//   - the Transceive command (section 10.3.1.8) with the chip's timer
//     started at the end of each transmission (TModeReg.TAuto), so a frame
//     no tag answers ends with TimerIRq after about 25 ms;
//
// and from ISO/IEC 14443-3 (type A): WUPA (7 bits), the anticollision
// loop's first step and SELECT at cascade levels 1, 2 and 3 (SEL 0x93,
// 0x95, 0x97, section 6.5.3), the cascade tag 0x88 and the SAK's cascade
// bit (6.5.3.4), CRC_A (annex B) and HLTA.
//
// Why not periph's mfrc522.Dev, whose register map this package uses:
// its ReadUID waits on the IRQ line (it cannot run without one), its
// Transceive returns no error when ErrorReg reports a collision or a CRC
// error and spins a fixed number of SPI reads that no context bounds, and
// for a 7-byte UID it reads cascade level 2 without selecting it, so the
// tag's SAK is never checked. This package therefore speaks to the chip
// through periph's spi.Conn directly.
//
// Polling, not the IRQ line: every exchange is bounded by the chip's own
// timer, and a poll is small (a 4-byte UID: 44 SPI transfers, 107 bytes;
// 7 bytes: 68; 10 bytes: 92; an empty field: 8), plus a read of CommIrqReg
// each millisecond while the timer runs, so reading CommIrqReg over SPI
// is as quick as waiting for an edge and needs no seventh wire. WUPA rather than REQA, and HLTA after each read, so that a
// tag left on the reader answers every poll (a selected tag that is not
// halted ignores REQA and WUPA alike, ISO/IEC 14443-3 figure 7), which is
// what lets package poll tell "still there" from "gone".
//
// For the tag's memory (poll.MemoryReader) each read wakes and selects the
// polled tag again, sends the Type 2 READ 0x30 with CRC_A (NTAG213/215/216
// datasheet, 10.2: 16 bytes and CRC_A, or a 4-bit NAK) and halts it; an
// ISO-DEP tag (SAK bit 0x20) is not read, as the ISO/IEC 14443-4 block
// protocol is not implemented.
//
// Two tags in the field at once collide; the full bit-wise anticollision
// is not done: Poll reports no tag until one is taken away.
//
// The tests replay SPI exchanges built from the datasheet with periph's
// spitest.Playback, and poll a register-level stand-in (rc522test.Sim)
// whose tag follows the ISO/IEC 14443-3 states; what needs a real board is
// listed in docs/raspberry-pi.md ("RC522 over SPI").
package rc522
