package audio

import (
	"fmt"
	"time"

	hopus "github.com/hraban/opus"
)

// MaxPacketSize bounds an Opus packet handed to Decode. It is above the
// largest packet an Opus encoder produces (120 ms at 510 kbit/s is 7,650
// bytes) and far above any RTP payload on a 1,500-byte MTU.
const MaxPacketSize = 8192

// maxFrameSamples is the longest Opus packet, 120 ms at 48 kHz.
const maxFrameSamples = SampleRate * 120 / 1000

// Decoder decodes the agent's Opus packets (RTP payloads, RFC 7587) to
// 48 kHz mono PCM. mediadevices only encodes, so decoding goes through
// libopus via github.com/hraban/opus. A Decoder keeps inter-packet state
// (Opus is predictive) and is safe for use by one goroutine at a time; use
// one per incoming track.
type Decoder struct {
	dec *hopus.Decoder
	buf [maxFrameSamples]int16
}

// NewDecoder returns a decoder for one 48 kHz mono stream.
func NewDecoder() (*Decoder, error) {
	dec, err := hopus.NewDecoder(SampleRate, Channels)
	if err != nil {
		return nil, fmt.Errorf("audio: opus decoder: %w", err)
	}
	return &Decoder{dec: dec}, nil
}

// Decode returns the PCM of one packet in a new slice. A malformed packet
// gets an error wrapping ErrBadPacket and leaves the decoder's state as it
// was (libopus parses the packet before touching its state).
func (d *Decoder) Decode(packet []byte) ([]int16, error) {
	if len(packet) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrBadPacket)
	}
	if len(packet) > MaxPacketSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrBadPacket, len(packet), MaxPacketSize)
	}
	n, err := d.dec.Decode(packet, d.buf[:])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPacket, err)
	}
	return append([]int16(nil), d.buf[:n]...), nil
}

// DecodeLost conceals lost audio of duration lost (a multiple of 2.5 ms up
// to 120 ms, usually the missing packets' count times 20 ms, as told by a
// gap in RTP sequence numbers) with libopus' packet loss concealment,
// which extrapolates from the previous packet instead of leaving a click.
func (d *Decoder) DecodeLost(lost time.Duration) ([]int16, error) {
	n := int(lost * SampleRate / time.Second)
	if lost <= 0 || n > maxFrameSamples || n%(SampleRate/400) != 0 {
		return nil, fmt.Errorf("%w: cannot conceal %v (multiples of 2.5 ms up to 120 ms)", ErrBadConfig, lost)
	}
	// hraban/opus conceals cap(pcm) samples, hence the full slice expression.
	if err := d.dec.DecodePLC(d.buf[:n:n]); err != nil {
		return nil, fmt.Errorf("audio: opus loss concealment: %w", err)
	}
	return append([]int16(nil), d.buf[:n]...), nil
}

// DecodeFEC recovers the 20 ms frame lost just before packet from the
// low-bitrate copy in-band FEC put into packet (see LossHint). Decode
// packet itself afterwards, as usual. A packet without such a copy
// yields libopus' concealment instead, so the result is never worse.
func (d *Decoder) DecodeFEC(packet []byte) ([]int16, error) {
	if len(packet) == 0 || len(packet) > MaxPacketSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrBadPacket, len(packet))
	}
	if err := d.dec.DecodeFEC(packet, d.buf[:FrameSamples:FrameSamples]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPacket, err)
	}
	return append([]int16(nil), d.buf[:FrameSamples]...), nil
}
