// Package term reads the controls from keys typed on a terminal, for
// `acbridge-demo run --interactive` and for a technician testing a kiosk from a
// laptop: by default s scans, p takes a photo, t toggles push-to-talk, c is a
// short cancel and C (shift-c) a long one.
//
// A terminal reports no key releases, so a key is a tap (press and release at
// once), a toggle (press on the first stroke, release on the next) or a long
// tap (press, long press, release). Keys typed on a terminal do not bounce,
// so nothing is debounced.
//
// By default the terminal stays in canonical mode, where keys arrive after
// Enter ("s" Enter scans). Options.Raw turns off canonical mode and echo
// (termios ICANON and ECHO; ISIG stays on, so Ctrl-C still stops the
// process) so single key strokes act at once; Close restores the settings. If
// the process is killed, `stty sane` repairs the terminal.
package term
