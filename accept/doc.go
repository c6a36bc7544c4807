// Package accept is the hardware acceptance checklist of a kiosk:
// the "separate device acceptance" that the AgentCall AG-UI extension 0.1
// asks for beside its protocol proof (spec "Independent reference proof":
// "Actual hardware collection requires separate device acceptance").
//
// Run walks an ordered list of steps — environment, NFC reader, buttons,
// camera, microphone and speaker, agent — each with an instruction for the
// technician, a timeout and a result: pass, fail with the reason and the
// fix, or skip with why, plus what could be measured (latencies, sizes,
// levels). The environment steps alone are `acbridge doctor`.
//
// The Report carries the device's identity (host name, acbridge version,
// reader, camera and microphone names, keystore fingerprint) and is written
// as JSON and as JUnit XML, the structure of the Jenkins xUnit plugin's
// junit-10.xsd that CI dashboards read. Neither ever holds a tag UID (the
// reader hands out aliases only) or image bytes (the acceptance photo is
// dropped after its checks, or written to the one path the technician
// names with ShowPath) — docs/architecture.md principles 1 and 2.
//
// A Technician is the person at the kiosk. Terminal talks to one on a
// terminal; accept/acceptsim builds a simulated kiosk — the vpcd virtual reader behind a
// real pcscd (or nfctest's in-process reader when pcscd is absent), the
// test camera and test microphone, buttons read by button/evdev from a FIFO
// carrying real input_event records, and the reference agent on loopback —
// with a simulated technician that answers its own prompts. That is how
// the checklist itself is tested.
package accept
