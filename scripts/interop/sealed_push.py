#!/usr/bin/env python3
"""Independent implementation of the sealed push (AES-256-GCM, call ID as associated data, caller
padded to 384 bytes with 0x80 0x00...) and of call grants (JWS ES256, kid = base64url(SHA-256(SPKI
DER)), aud = gateway, exp - iat <= 15 days, 60 s skew), on Python `cryptography` (PyPI). Written
from docs/wake-gateway.md "Sealed push", not from the Swift code.

  sealed_push.py generate            -> the published vectors (Tests/JWTTests/Vectors/sealed-push.json)
  sealed_push.py verify FILE|-       -> {"seal_ok":N,"seal_failed":[...],"grant_ok":N,"grant_failed":[...]}
  sealed_push.py produce             -> fresh vectors of this implementation, for the Swift side to check
"""
import base64, hashlib, json, os, sys
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives import hmac as chmac
from cryptography.exceptions import InvalidSignature, InvalidTag

PADDED = 384
MAX_LIFETIME = 15 * 86400
SKEW = 60
NOW = 1_780_000_000
GATEWAY = "wakegw.clinic.example"
# The endpoint every grant of the vectors is for (`sub`): the line registering.
ENDPOINT = "+4930555000001"


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pad(plain):
    assert len(plain) < PADDED
    return plain + b"\x80" + b"\x00" * (PADDED - len(plain) - 1)


def unpad(padded):
    stripped = padded.rstrip(b"\x00")
    if not stripped.endswith(b"\x80"):
        raise ValueError("bad padding")
    return stripped[:-1]


def seal(key, call_id, plain, nonce):
    return nonce + AESGCM(key).encrypt(nonce, pad(plain), call_id.encode())


def open_blob(key, call_id, blob):
    return unpad(AESGCM(key).decrypt(blob[:12], blob[12:], call_id.encode()))


def gateway_hash(key, gateway):
    mac = chmac.HMAC(key, hashes.SHA256())
    mac.update(b"astra-gateway-hash\x00" + gateway.encode())
    return mac.finalize()[:16].hex()


def spki(public_key):
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def kid(public_key):
    return b64u(hashlib.sha256(spki(public_key)).digest())


def jws(header, claims, sign):
    head = b64u(json.dumps(header, separators=(",", ":")).encode())
    body = b64u(json.dumps(claims, separators=(",", ":")).encode())
    return head + "." + body + "." + b64u(sign((head + "." + body).encode()))


def es256(private_key):
    def sign(data):
        r, s = decode_dss_signature(private_key.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return sign


def grant(private_key, gateway, iat, exp, alg="ES256", signer=None, key_id=None, endpoint=None):
    header = {"alg": alg, "typ": "JWT", "kid": key_id or kid(private_key.public_key())}
    claims = {"aud": gateway, "sub": endpoint or ENDPOINT, "iat": iat, "exp": exp}
    return jws(header, claims, signer or es256(private_key))


def check(token, public_key, gateway, endpoint, now):
    """The verdict, by the documented order: alg, kid, signature, then claims."""
    try:
        h64, c64, s64 = token.split(".")
        header = json.loads(unb64u(h64))
    except Exception:
        return "malformed"
    if header.get("alg") != "ES256":
        return "alg_not_es256"
    if "crit" in header:
        return "malformed"
    if header.get("kid") != kid(public_key):
        return "other_device_key"
    sig = unb64u(s64)
    if len(sig) != 64:
        return "bad_signature"
    try:
        der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        public_key.verify(der, (h64 + "." + c64).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "bad_signature"
    claims = json.loads(unb64u(c64))
    if not isinstance(claims.get("exp"), int) or not isinstance(claims.get("iat"), int):
        return "malformed"
    if claims.get("aud") != gateway:
        return "other_gateway"
    if claims.get("sub") != endpoint:
        return "other_endpoint"
    if claims["exp"] - claims["iat"] > MAX_LIFETIME:
        return "too_long"
    if not now < claims["exp"] + SKEW:
        return "expired"
    if claims["iat"] > now + SKEW:
        return "not_yet_valid"
    return "valid"


def caller_json(uri, user, name, end_ms):
    return json.dumps({"uri": uri, "user": user, "name": name, "end_ms": end_ms}, separators=(",", ":"),
                      ensure_ascii=False).encode()


def vectors(fixed):
    """Seal vectors with fixed keys and nonces when `fixed` (the published ones), random otherwise."""
    rnd = (lambda n, i: bytes((i * 37 + j * 11 + 5) % 256 for j in range(n))) if fixed else (lambda n, i: os.urandom(n))
    seals = []
    callers = [("sip:+4930555000001@clinic.example", "+4930555000001", "Ward 7 Bed 3"),
               ("sip:1001@pbx.example", "1001", ""),
               ("sip:patient@clinic.example", "patient", "M\u00fcller, Anna \u2013 \u00e9t\u00e9")]
    for i, (uri, user, name) in enumerate(callers):
        key, nonce = rnd(32, i), rnd(12, i + 100)
        call_id = "c%d-%s@clinic.example" % (i, rnd(6, i + 200).hex())
        plain = caller_json(uri, user, name, NOW * 1000 + 30000)
        blob = seal(key, call_id, plain, nonce)
        seals.append({"key": key.hex(), "call_id": call_id, "caller": plain.decode(), "nonce": nonce.hex(),
                      "blob": b64u(blob), "gateway_hash": gateway_hash(key, GATEWAY)})
    device = ec.generate_private_key(ec.SECP256R1())
    other = ec.generate_private_key(ec.SECP256R1())
    day = 86400
    good = grant(device, GATEWAY, NOW - 100, NOW + 14 * day)
    h, c, s = good.split(".")
    flipped = bytearray(unb64u(s))
    flipped[10] ^= 1
    hs = lambda data: chmac_sign(b"k" * 32, data)
    grants = [
        ("valid", good),
        ("valid", grant(device, GATEWAY, NOW - 30, NOW - 30)),  # expired 30 s ago: within the skew
        ("expired", grant(device, GATEWAY, NOW - 14 * day, NOW - 61)),
        ("too_long", grant(device, GATEWAY, NOW - 100, NOW - 100 + 15 * day + 1)),
        ("valid", grant(device, GATEWAY, NOW - 100, NOW - 100 + 15 * day)),
        ("other_gateway", grant(device, "wakegw.elsewhere.example", NOW - 100, NOW + 14 * day)),
        ("other_endpoint", grant(device, GATEWAY, NOW - 100, NOW + 14 * day, endpoint="+4930555000002")),
        ("other_device_key", grant(other, GATEWAY, NOW - 100, NOW + 14 * day)),
        ("bad_signature", h + "." + c + "." + b64u(bytes(flipped))),
        ("bad_signature", grant(other, GATEWAY, NOW - 100, NOW + 14 * day, key_id=kid(device.public_key()))),
        ("alg_not_es256", grant(device, GATEWAY, NOW - 100, NOW + 14 * day, alg="HS256", signer=hs)),
        ("alg_not_es256", grant(device, GATEWAY, NOW - 100, NOW + 14 * day, alg="none", signer=lambda d: b"") + "AA"),
        ("not_yet_valid", grant(device, GATEWAY, NOW + 3600, NOW + 7200)),
    ]
    return {"gateway": GATEWAY, "endpoint": ENDPOINT, "now": NOW, "device_key": b64u(spki(device.public_key())),
            "seal": seals, "grant": [{"grant": g, "verdict": v} for v, g in grants]}


def chmac_sign(key, data):
    mac = chmac.HMAC(key, hashes.SHA256())
    mac.update(data)
    return mac.finalize()


def verify(doc):
    result = {"seal_ok": 0, "seal_failed": [], "grant_ok": 0, "grant_failed": []}
    for i, v in enumerate(doc.get("seal", [])):
        key, blob = bytes.fromhex(v["key"]), unb64u(v["blob"])
        try:
            plain = open_blob(key, v["call_id"], blob)
            ok = plain == v["caller"].encode() and len(blob) == 12 + PADDED + 16
            if "nonce" in v:
                ok = ok and seal(key, v["call_id"], plain, bytes.fromhex(v["nonce"])) == blob
            if "gateway_hash" in v:
                ok = ok and gateway_hash(key, doc["gateway"]) == v["gateway_hash"]
            # A changed call ID must not open.
            try:
                open_blob(key, v["call_id"] + "x", blob)
                ok = False
            except InvalidTag:
                pass
        except (InvalidTag, ValueError):
            ok = False
        if ok:
            result["seal_ok"] += 1
        else:
            result["seal_failed"].append(i)
    public = serialization.load_der_public_key(unb64u(doc["device_key"]))
    for i, v in enumerate(doc.get("grant", [])):
        verdict = check(v["grant"], public, doc["gateway"], doc["endpoint"], doc["now"])
        if verdict == v["verdict"]:
            result["grant_ok"] += 1
        else:
            result["grant_failed"].append({"index": i, "expected": v["verdict"], "got": verdict})
    return result


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "generate":
        print(json.dumps(vectors(True), indent=1, ensure_ascii=False))
    elif mode == "produce":
        print(json.dumps(vectors(False), ensure_ascii=False))
    elif mode == "verify" and len(sys.argv) == 3:
        text = sys.stdin.read() if sys.argv[2] == "-" else open(sys.argv[2], encoding="utf-8").read()
        print(json.dumps(verify(json.loads(text))))
    else:
        print("usage: sealed_push.py generate | produce | verify FILE|-", file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main())
