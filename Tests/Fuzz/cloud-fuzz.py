#!/usr/bin/env python3
"""Fuzzes a running cloud: N malformed and hostile requests over HTTP or TLS from 16 threads; prints a JSON line
with the counts of 5xx answers, hangs and statuses, whether the cloud lives, /health after, and its RSS before and after.

Usage: cloud-fuzz.py HOST PORT CLOUD_PID COUNT http|tls SEED (run-cloud-fuzz.sh starts a cloud and runs it)."""
import json, os, random, socket, ssl, sys, threading, time
host, port, pid, total, use_tls, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "tls", int(sys.argv[6])
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
def connect():
    s = socket.create_connection((host, port), timeout=15)
    return ctx.wrap_socket(s) if use_tls else s
def exchange(data, wait=15):
    s = connect(); s.settimeout(wait)
    try:
        s.sendall(data)
        try: s.shutdown(socket.SHUT_WR) if not use_tls else None
        except OSError: pass
        out = b""
        while True:
            try: d = s.recv(65536)
            except socket.timeout:
                # An answer came and the connection is kept alive (TLS cannot half-close): done. Nothing at all: a hang.
                return out, not out
            if not d: break
            out += d
            s.settimeout(0.5)
            if len(out) > 1 << 22: break
        return out, False
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError): return b"", False
    finally: s.close()
def post(path, body, extra=b""):
    return b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n" + extra + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
C = b"/database/1/iCloud.cloudtodo/development/private/"
token = None
def junk_json(r, depth=0):
    k = r.randrange(8)
    if depth > 4 or k == 0: return r.choice([None, True, 1e308, -1, 2**70, "x" * r.randrange(0, 3000), "\u0000\ud7ff", [], {}])
    if k < 4: return [junk_json(r, depth + 1) for _ in range(r.randrange(0, 6))]
    keys = ["operations", "records", "zoneID", "zoneName", "recordName", "fields", "value", "type", "query", "filterBy", "sortBy", "resultsLimit", "continuationMarker", "syncToken", "recordType", "account", "password", "deviceName", "zones", "ownerRecordName", "atomic"]
    return {r.choice(keys): junk_json(r, depth + 1) for _ in range(r.randrange(0, 6))}
def request(r):
    k = r.randrange(20)
    auth = b"Authorization: Bearer " + token.encode() + b"\r\n" if token and r.random() < .7 else b""
    if k == 0: return b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    if k == 1: return bytes(r.randrange(256) for _ in range(r.randrange(1, 4000)))
    if k == 2: return r.choice([b"GET", b"CONNECT", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH", b"FOO", b"G\x00T"]) + b" " + r.choice([b"/", b"*", b"x:443", b"/health", C + b"records/modify", b"/%ff%00/../" * 50]) + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    if k == 3: return b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * r.choice([30000, 40000, 100000]) + b"\r\n\r\n"
    if k == 4: return b"GET /health HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(r.choice([99, 150, 1000]))) + b"\r\n"
    if k == 5: return b"POST " + C + b"records/modify HTTP/1.1\r\nHost: x\r\nContent-Length: " + r.choice([b"100000000", b"-1", b"abc", b"1, 2", b"99999999999999999999"]) + b"\r\n\r\n{}"
    if k == 6: return b"POST " + C + b"records/modify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + r.choice([b"zz\r\n", b"ffffffffff\r\nab", b"5\r\nabcde\r\n0\r\n\r\n", b"1000001\r\n" + b"a" * 1000])
    if k == 7: return post(C + r.choice([b"records/modify", b"records/query", b"records/lookup", b"zones/modify", b"zones/list", b"changes/database", b"changes/zone", b"subscriptions/modify", b"assets/upload"]), json.dumps(junk_json(r)).encode(), auth)
    if k == 8: return post(C + b"records/modify", b"[" * r.choice([1000, 100000]) + b"]" * r.choice([0, 1000]), auth)
    if k == 9: return post(b"/auth/1/iCloud.cloudtodo/" + r.choice([b"signin", b"accounts", b"signout"]), json.dumps({"account": r.choice(["a" * 10000, "\u202e", "x\u0000y", "alice"]), "password": r.choice(["", "p" * 5000, "\ud800".encode("utf-8", "surrogatepass").decode("latin1")]), "deviceName": "d" * r.randrange(0, 500)}).encode(), b"X-Real-IP: " + r.choice([b"1.2.3.4", b"junk", b"::1", b"\xff" * 10]) + b"\r\n")
    if k == 10: return post(C + b"records/modify", bytes(r.randrange(256) for _ in range(r.randrange(0, 2000))), auth)
    if k == 11: return b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(r.randrange(256) for _ in range(50))
    if k == 12: return b"GET /health\r\n\r\n"
    if k == 13: return b"GET " + b"/" + b"a/" * r.choice([1000, 10000]) + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    if k == 14: return b"GET /device/1/iCloud.cloudtodo/development/courier/" + bytes(r.choice(b"abcdef0123456789%/") for _ in range(r.randrange(0, 300))) + b"?timeout=" + r.choice([b"-1", b"1e308", b"nan", b"0.01"]) + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    if k == 15: return post(C + b"records/query", json.dumps({"query": {"recordType": "Todo", "filterBy": [junk_json(r) for _ in range(50)]}, "zoneID": {"zoneName": "Todos"}, "resultsLimit": r.choice([-1, 0, 10**12])}).encode(), auth)
    if k == 16: return b"GET /assets/1/iCloud.cloudtodo/development/download/" + b"0" * 64 + b"?ckAPIToken=" + b"%" * 100 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    if k == 17: return b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" * r.randrange(2, 50)  # pipelined
    if k == 18: return post(C + b"records/modify", json.dumps({"operations": [{"operationType": "forceReplace", "record": {"recordName": "r%d" % r.randrange(100), "recordType": "Todo", "fields": {"title": {"value": "x" * r.randrange(0, 100000)}}}}] * r.randrange(1, 5), "zoneID": {"zoneName": "Todos"}}).encode(), auth)
    return b"GET /health HTTP/1.1\r\nHost: x\r\n" + r.choice([b"Content-Length: 5\r\n\r\nab", b"\r\n", b"Bad Header\r\n\r\n", b"X: \x00\x01\r\n\r\n"])
stats = {"requests": 0, "5xx": 0, "hangs": 0, "noanswer": 0, "statuses": {}}
lock = threading.Lock()
def worker(n, s):
    r = random.Random(s)
    for _ in range(n):
        data = request(r)
        try: out, hung = exchange(data)
        except OSError: out, hung = b"", False
        status = out[9:12].decode("latin1") if out.startswith(b"HTTP/1.") else "-"
        with lock:
            stats["requests"] += 1
            stats["statuses"][status] = stats["statuses"].get(status, 0) + 1
            if status.startswith("5"): stats["5xx"] += 1; print("5xx:", data[:120], out[:200], flush=True) if stats["5xx"] < 20 else None
            if hung: stats["hangs"] += 1; print("hang:", data[:120], flush=True) if stats["hangs"] < 20 else None
try:
    body = json.dumps({"account": "fuzzer", "password": "fuzzer password"}).encode()
    exchange(post(b"/auth/1/iCloud.cloudtodo/accounts", body))
    out, _ = exchange(post(b"/auth/1/iCloud.cloudtodo/signin", json.dumps({"account": "fuzzer", "password": "fuzzer password", "deviceName": "f"}).encode()))
    token = json.loads(out.split(b"\r\n\r\n", 1)[1])["ckWebAuthToken"]
    exchange(post(C + b"zones/modify", json.dumps({"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Todos"}}}]}).encode(), b"Authorization: Bearer " + token.encode() + b"\r\n"))
except Exception as e: print("no token:", e)
before = rss(); t = time.time()
threads = [threading.Thread(target=worker, args=(total // 16, seed + i)) for i in range(16)]
[th.start() for th in threads]; [th.join() for th in threads]
alive = os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split(") ")[1][0] != "Z"
health, _ = exchange(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print(json.dumps({"tls": use_tls, "seed": seed, "seconds": round(time.time() - t), "alive": alive, "health_after": health[:15].decode("latin1"), "rss_before_mb": before, "rss_after_mb": rss(), **stats}, sort_keys=True))
