// Package audio carries a session's voice for the WebRTC transport of the
// AgentCall AG-UI extension 0.1 (spec "Transports" / profile
// agentcall-webrtc-0.1: one bidirectional Opus track, 48 kHz, mono) and the
// explicit audio turns of the same spec ("audioTurnControl",
// audio.turn.start / commit / cancel).
//
// Directions:
//
//   - Mic captures the microphone (host devices through miniaudio
//     (github.com/gen2brain/malgo), mediadevices' audiotest driver under
//     the name TestDevice) and encodes it with mediadevices' Opus codec
//     (RFC 6716) into 20 ms packets, read with Mic.ReadPacket and
//     written by the transport with track.WriteSample. The device is open
//     only between Start and Stop, so the microphone (and its LED) is off
//     between explicit turns and between engagements (docs/architecture.md,
//     principle 3). Every Start looks the device up again, so a microphone
//     plugged in (or back in) after the start is found; it is opened at
//     its own rate and format, miniaudio converts the sample format and
//     libspeexdsp's resampler the rate to 48 kHz (resample.go).
//   - Decoder turns the agent's RTP Opus payloads (RFC 7587) back into
//     48 kHz mono PCM through libopus (github.com/hraban/opus), with packet
//     loss concealment for gaps.
//   - A Sink takes that PCM: Speaker plays it on the default output device
//     (miniaudio), WAVWriter stores it as a RIFF/WAVE PCM file
//     (Microsoft "Multimedia Programming Interface and Data Specifications
//     1.0", 1991), and audiotest.Recorder keeps it in memory for tests.
//
// In a room the microphone also hears the speaker. Processor cancels
// that echo before encoding (libspeexdsp's MDF canceller and
// preprocessor through a small cgo binding, speexdsp.go), with what the
// Speaker hands its device as the reference and the delay between the
// two measured by GCC-PHAT cross-correlation (delay.go); it also
// suppresses noise and applies a fixed gain. Volume sets the Speaker's
// level and ducks it while push-to-talk is held. EchoPath and
// SpeechLike simulate rooms and talkers for the benchmark, the tests and
// the acceptance check's simulated kiosk.
//
// Analysis helpers (RMS, peak and clipping, noise floor, dominant
// frequency by Goertzel) serve tests and the hardware acceptance checks;
// Voice generates the short voice-like reply the reference agent sends
// after each committed turn.
//
// Nothing is loaded before it is needed: a sound-system context (which
// maps libpulse or alsa-lib and their dependencies) exists only while
// devices are listed, a capture run is on, or a Speaker is open, and
// LazyMic defers even the listing to the first session that carries voice.
// The format constants and Packet live in package wire, without cgo, for
// the protocol side.
//
// Audio never goes to logs; only counts and levels do.
package audio
