"""Gives the API fuzzer something to find: an account (a guest from a
`hello` on the WebSocket that claims its name: its session token and player
id) and a match it imported (its id; only accounts import), on the server
at ADDRESS (host:port). Prints them as JSON.

    python3 tests/api-fuzz/seed.py 127.0.0.1:8080 EGN_FILE
"""

import base64
import json
import os
import socket
import sys
import urllib.request


def websocket_hello(address: str) -> dict:
    """The server's welcome to a new guest: a minimal WebSocket client (one
    masked text frame out, unfragmented frames in), which is all this needs."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        reader = conn.makefile("rb")
        status = reader.readline()
        if b" 101 " not in status:
            sys.exit(f"no WebSocket upgrade: {status!r}")
        while reader.readline() not in (b"\r\n", b""):
            pass
        hello = {"type": "hello", "id": 1, "protocol_version": 1, "name": "Fuzz"}
        payload = json.dumps(hello).encode()
        mask = os.urandom(4)
        header = bytes([0x81, 0x80 | len(payload)]) + mask
        conn.sendall(header + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            first, second = reader.read(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(reader.read(2), "big")
            elif length == 127:
                length = int.from_bytes(reader.read(8), "big")
            body = reader.read(length)
            if first & 0x0F == 1:
                message = json.loads(body)
                if message.get("type") == "welcome":
                    return message
                if message.get("type") == "error":
                    sys.exit(f"hello refused: {message}")


def claim(address: str, guest_token: str, name: str) -> str:
    """The guest claims its name: the new session's token."""
    request = urllib.request.Request(
        f"http://{address}/api/accounts",
        data=json.dumps({"name": name, "password": "fuzzing horse"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {guest_token}"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["token"]


def import_match(address: str, token: str, egn_file: str) -> str:
    with open(egn_file, "rb") as egn:
        request = urllib.request.Request(
            f"http://{address}/api/matches/import",
            data=egn.read(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["id"]


if __name__ == "__main__":
    address, egn_file = sys.argv[1], sys.argv[2]
    welcome = websocket_hello(address)
    session = claim(address, welcome["token"], welcome["player"]["name"])
    print(
        json.dumps(
            {
                "token": session,
                "player": welcome["player"]["id"],
                "match": import_match(address, session, egn_file),
            }
        )
    )
