// Package keystore holds the device secret that turns raw NFC tag UIDs into
// opaque, agent-scoped aliases, and loads the agent bearer token from a file.
//
// It implements the "Tag alias" section of docs/architecture.md and the AgentCall AG-UI
// extension 0.1 rule (spec section "Security, photos, and exact object
// lookup") that ordinary hardware tags "map locally to an opaque keyed alias;
// raw NFC hardware IDs never leave the client", and that "a localTag digest
// covers the alias, not the hardware ID".
//
// # Alias scheme
//
//	prk   = HKDF-Extract(SHA-256, secret, salt = "acbridge/localTag/v1")
//	okm   = HKDF-Expand(prk, info = scope || 0x00 || uid, 16 bytes)
//	alias = lowercase(base32-std-nopad(okm))            // 26 chars of [a-z2-7]
//	objectRef     = "urn:agentcall:object:" + alias
//	payloadSha256 = hex(SHA-256(alias))
//
// The 0x00 between scope and uid (docs/architecture.md, "Tag alias") is
// there on purpose: without a separator the concatenation is ambiguous, so
// scope "https://a:1" with a UID starting with the byte '2' would produce the
// same info as scope "https://a:12" with the rest of that UID. A canonical
// scope (see CanonicalScope) never contains a 0x00 byte, so the split is
// unique.
//
// scope is the agent card's origin, so two agents see unrelated aliases for
// the same tag and cannot correlate it. Rotating the secret (Store.Rotate)
// starts a new epoch and changes every alias.
//
// # Keystore file
//
// A small JSON document, mode 0600, in the state directory (DefaultDir):
//
//	{"version":1,"epoch":1,"secret":"<base64 of 32 bytes>","created":"RFC 3339"}
//
// It is written atomically (temporary file in the same directory, fsync,
// rename, fsync of the directory), so a crash leaves either the old or the
// new secret, never a mix. Open checks the permission bits on the opened
// descriptor before reading a byte, and refuses a file that group or others
// can access (ErrInsecureMode) because anyone who reads the secret can map
// aliases back to tags by trying UIDs.
//
// Open also refuses a keystore someone else controls (ErrUntrusted): a file
// owned by another user, or a directory group or others can write. Writers
// (Create, Rotate) hold an flock on the directory and Rotate starts from the
// epoch in the file, so concurrent rotations get distinct epochs; under that
// lock, temporary files a crashed writer left (each holding a secret) are
// removed. After "acbridge keys rotate" the daemon must be restarted to pick
// up the new secret.
//
// Neither the secret nor a UID ever appears in an error, a log line or any
// output of this package; Fingerprint is a one-way identifier of the secret
// for reports.
package keystore
