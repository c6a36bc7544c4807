package vpcd

import "github.com/agentcall/acbridge/nfc/ndef/ndeftest"

// Memory is what a virtual tag holds besides its UID (ndeftest.Memory).
type Memory = ndeftest.Memory

const insReadBinary = 0xB0

// answer answers GET DATA as answer does, READ BINARY of a Type 2 tag's
// pages (PC/SC part 3, 3.2.2.1.8: FF B0 00 page 10, which readers turn
// into the tag's READ 0x30) and, for a Type 4 tag, ISO 7816-4 commands.
func (s *session) answer(cmd []byte, refuse uint16) []byte {
	switch {
	case len(cmd) == 5 && cmd[0] == claPCSC && cmd[1] == insReadBinary && s.mem.Type2 != nil:
		b, ok := s.mem.Type2.Read(cmd[3])
		if !ok || cmd[2] != 0 || cmd[4] != 16 {
			return sw(0x6A82) // the tag's NAK, as readers report it
		}
		return append(b, byte(swOK>>8), byte(swOK&0xFF))
	case len(cmd) >= 4 && cmd[0] != claPCSC && s.mem.Type4 != nil:
		return s.mem.Type4.Answer(cmd)
	}
	return answer(cmd, s.uid, refuse)
}
