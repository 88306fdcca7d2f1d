#!/usr/bin/env python3
"""Independent JWT minter (tests, and a dev token for curl against astra-wakegw): Python's stdlib (hmac, base64,
json) and the openssl command line, nothing from AstraSIP.

usage: scripts/mint-jwt.py ALG KEYFILE CLAIMS_JSON [HEADER_JSON]
  ALG      HS256 (KEYFILE holds the secret, one trailing newline dropped), RS256 or ES256 (KEYFILE
           is a PEM private key; ES256's DER signature is converted to JOSE r||s here).
Prints the compact token on stdout.
"""
import base64, hmac, hashlib, json, subprocess, sys, tempfile, os


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def der_to_raw(der):
    # ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }
    assert der[0] == 0x30
    i = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    out = b""
    for _ in range(2):
        assert der[i] == 0x02
        n = der[i + 1]
        value = der[i + 2:i + 2 + n].lstrip(b"\x00")
        out += value.rjust(32, b"\x00")
        i += 2 + n
    return out


def main():
    alg, keyfile, claims = sys.argv[1], sys.argv[2], sys.argv[3]
    # Header and claims are encoded as given (so a test can send a repeated member name).
    header = sys.argv[4] if len(sys.argv) > 4 else json.dumps({"alg": alg, "typ": "JWT"})
    signing_input = (b64url(header.encode()) + "." + b64url(claims.encode())).encode()
    if alg == "HS256":
        secret = open(keyfile, "rb").read()
        if secret.endswith(b"\n"):
            secret = secret[:-1]
        signature = hmac.new(secret, signing_input, hashlib.sha256).digest()
    elif alg in ("RS256", "ES256"):
        with tempfile.NamedTemporaryFile(delete=False) as f:
            f.write(signing_input)
            path = f.name
        try:
            signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", keyfile, path],
                                       check=True, capture_output=True).stdout
        finally:
            os.unlink(path)
        if alg == "ES256":
            signature = der_to_raw(signature)
    else:
        signature = b""
    print(signing_input.decode() + "." + b64url(signature))


main()
