// Package audiotest holds stand-ins for the audio hardware that has no
// software substitute in tests: Recorder is a Sink that keeps what would
// have been played (the fake speaker), and CountingDriver wraps a
// mediadevices microphone driver to show when the device is open, so tests
// can check that the microphone is open only during a turn (docs/architecture.md,
// principle 3). The microphone itself needs no fake: mediadevices'
// audiotest driver, selected with audio.TestDevice, is a real driver
// producing a known tone (audio.TestToneHz); Room's microphone hears what
// a test has it hear, such as SpeechLike or a Tone.
package audiotest
