// Package bridge is the session engine (docs/architecture.md, "Data
// flow of a tap"; spec "Session and input", "Agent-requested collection"): button
// presses drive collections (an armed NFC window, a photo), collections
// become observations checked against the session's negotiated set, and the
// agent's events reach the person (terminal, log, LED, optional local TTS).
// It keeps the daemon working through every fault a kiosk sees: the agent
// down, refusing or closing (reconnect with jittered backoff, session-local
// state dropped each time), pcscd or the camera failing (retried on the next
// press, without restarting). The kiosk keeps its promises to the person
// (run.go, connect.go): input with no session to serve it is refused at
// once, never kept for later; a silent agent is cancelled after the run
// timeout and dropped after the cancel grace; a long CANCEL disarms a
// running collection; text from the agent is cleaned of controls in the one
// place it is shown or spoken (notice.go).
//
// Spec sections: "Session and input" (capabilities offered are the enabled
// modalities whose hardware is present now), "Agent-requested collection"
// (a request is answered only by the person's press on the matching
// control, with the exact interactionId), "Security, photos, and exact
// object lookup" (photos are never stored; the privacy audit records what
// left the device without UIDs or image bytes).
package bridge
