"""Checks our simulated RouterOS device with Debian's python3-librouteros (a protocol implementation we did
not write). Run by test/routeros/api/peers.slow.test.ts with /usr/bin/python3; prints one JSON object of results.
The password comes from the environment (ROUTER_PASSWORD), never the command line."""
import hashlib
import json
import os
import ssl
import sys

import librouteros
from librouteros.exceptions import TrapError
from librouteros.query import Key

port = int(os.environ["ROUTER_PORT"])
password = os.environ["ROUTER_PASSWORD"]
results = {"librouteros": getattr(librouteros, "__version__", "?")}
seen_fingerprints = []


def wrap(sock):
    # The fingerprint printed by `router simulate` pins the certificate: compare it with the one on the wire.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    wrapped = context.wrap_socket(sock)
    digest = hashlib.sha256(wrapped.getpeercert(binary_form=True)).hexdigest().upper()
    seen_fingerprints.append("sha256:" + ":".join(digest[i:i + 2] for i in range(0, 64, 2)))
    if seen_fingerprints[-1] != os.environ["ROUTER_FINGERPRINT"]:
        raise ssl.SSLError("fingerprint mismatch")
    return wrapped


def connect(pw):
    return librouteros.connect(host="127.0.0.1", port=port, username="admin", password=pw, ssl_wrapper=wrap, timeout=10)


try:
    connect(password + "-wrong")
    results["wrong_password"] = "accepted"
except TrapError as error:
    results["wrong_password"] = error.message

api = connect(password)
results["fingerprint_matches"] = seen_fingerprints[-1] == os.environ["ROUTER_FINGERPRINT"]
results["identity"] = list(api("/system/identity/print"))
addresses = api.path("ip", "address")
results["add_ret"] = addresses.add(address="10.9.0.1/24", interface="ether1", comment="from python")
results["select"] = list(addresses.select(Key(".id"), Key("address"), Key("comment")).where(Key("interface") == "ether1"))
results["select_or"] = list(
    api.path("interface").select(Key("name")).where(Key("name").In("ether1", "ether2"))
)
try:
    addresses.add(address="10.9.0.1/24", interface="ether1")
    results["trap"] = "no trap"
except TrapError as error:
    results["trap"] = error.message
# The trap's category, as librouteros reads it (an int): 1, an argument's value; 0, a missing command.
try:
    addresses.add(address="192.168.88.1/24", interface="asdf")
    results["trap_category"] = "no trap"
except TrapError as error:
    results["trap_category"] = [error.category, error.message]
try:
    list(api("/ip/adress/print"))
    results["trap_missing"] = "no trap"
except TrapError as error:
    results["trap_missing"] = [error.category, error.message]
results["empty"] = list(addresses.select(Key("address")).where(Key("interface") == "ether7"))
results["execute"] = list(api("/execute", **{"script": ':put "py"', "as-string": ""}))

# Unset words: librouteros sends `=!comment=` for a key written with a leading "!".
addresses.update(**{".id": results["add_ret"], "!comment": ""})
results["unset"] = list(addresses.select(Key(".id"), Key("comment")).where(Key(".id") == results["add_ret"]))

# Stable ids: removing one file leaves the others' ids, and removing by a listed id removes that file.
for name in ("peer-a", "peer-b", "peer-c"):
    list(api("/export", file=name))
files = api.path("file")
before = {entry["name"]: entry[".id"] for entry in files}
files.remove(before["peer-a.rsc"])
after = {entry["name"]: entry[".id"] for entry in files}
files.remove(before["peer-c.rsc"])
results["ids_before"] = before
results["ids_after_one_removed"] = after
results["names_after_two_removed"] = sorted(entry["name"] for entry in files)
api.close()
json.dump(results, sys.stdout)
