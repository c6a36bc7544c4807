// Package setup is `acbridge setup`, the first run of a kiosk: it lists
// the hardware the station tables detect (the reader drivers' sections,
// cameras, microphones, speakers, GPIO chips, keypads), asks which reader,
// camera, microphone and speaker to use, learns each button by having the
// technician press it, asks for the agent's URL and token, and writes a
// commented configuration (docs/configuration.md; the token under the
// rules of agent.token_file, spec "Transport" §bearer token). It then runs
// doctor and offers the acceptance (docs/acceptance.md).
//
// Questions are answered on an io.Reader line by line, or all at once from
// an Answers file, so the whole dialogue runs without a terminal. Nothing is
// written until every answer is good: a bad answer, a button not pressed
// within the wait or a path that cannot be written leaves the disk as it
// was.
package setup
