// Package kiosk serves the local touch page of a kiosk: what the agent says,
// what it asks for, whether the reader or camera is armed, and on-screen
// controls that work as one more button backend (docs/architecture.md,
// "Layers"; docs/kiosk.md for the Chromium set-up).
//
// The page follows the spec's rules for collections (agentcall-agui-0.1.md,
// "Session and input": "the user must initiate each collection while the app
// is in the foreground through a visible control"; "Agent-requested
// collection": "the client presents a visible scan/capture action; it never
// silently opens the camera or reader"). The page reports
// document.visibilityState and focus; a scan, photo or talk press counts only
// from a page whose live stream is open and that is visible and focused both
// in its last report and in the press itself. Cancel never collects anything,
// so it is taken from any page with the token: a person must always be able
// to stop what is running.
//
// Security of a page on loopback: the listener must be a loopback address;
// the Host header must name this server (DNS rebinding); the Origin header
// must be this server's on every state-changing request and on the live
// stream (cross-site requests); state-changing requests and the stream carry
// a random token made at each start and embedded in the page; no CORS
// headers are ever sent; a strict Content-Security-Policy allows only the
// page's own script and style files, and framing is refused.
//
// Nothing sensitive reaches the page. Notices carry no UID, alias or image
// bytes (package bridge); a sent observation is shown as "Tag sent" or
// "Photo sent" from its control alone, and any object reference URN that an
// agent might echo in its text is masked before it is shown. A photo preview
// is not offered: notices carry no image.
//
// The page is for the public (EN 301 549 for a closed self-service
// terminal; WCAG 2.2 AA): every word on it is a visitor's word from the
// message catalogues (locales/, one per language), chosen by the notice's
// kind, control and health code; the bridge's own words, which may name
// addresses and errors, are the operator's and never shown. A control
// that cannot act says why. Speech mode says every change of the screen
// through the TTS command, for a person who cannot see it. The physical
// buttons walk the page's focus (a short Cancel), so that they alone reach
// every control, the page-only ones included (WCAG 2.4.3, 2.4.7; EN 301 549
// 5.1.6 for a closed device's tactile controls).
//
// Live updates use Server-Sent Events: every change sends the page the whole
// present state (bounded: the last few entries of the conversation), so a
// page that loads or reconnects later shows what is true now.
package kiosk
