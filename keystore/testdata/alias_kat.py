# Independent known-answer vector for TestKnownAnswer (keystore_test.go):
# python3 keystore/testdata/alias_kat.py
# Independent HKDF-SHA256 (RFC 5869) by hand with hmac/hashlib.
import hmac, hashlib, base64
def hkdf(secret, salt, info, n):
    prk = hmac.new(salt, secret, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t; i += 1
    return out[:n]
secret = bytes(range(32))
scope = b"https://agent.example"
uid = bytes.fromhex("04A1B2C3D4E5F6")
okm = hkdf(secret, b"acbridge/localTag/v1", scope + b"\x00" + uid, 16)
alias = base64.b32encode(okm).decode().rstrip("=").lower()
print("alias", alias, len(alias))
print("sha", hashlib.sha256(alias.encode()).hexdigest())
print("fp", "ks1-" + hkdf(secret, b"acbridge/keystore-fingerprint/v1", (1).to_bytes(4, "big"), 8).hex())
print("b64", base64.b64encode(secret).decode())
# RFC 5869 test case 1 sanity check of the hand-written HKDF
ikm = bytes([0x0b]*22); salt = bytes(range(13)); info = bytes(range(0xf0, 0xfa))
assert hkdf(ikm, salt, info, 42).hex() == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
print("rfc5869 tc1 ok")
