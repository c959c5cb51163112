# The sandbox's one way to a Dask scheduler (sandbox/cluster_relay.go):
# a listener on the sandbox's loopback whose connections travel as
# frames over this process's stdin and stdout to the host, which opens
# each to the one scheduler it was given. No frame names an address, so
# nothing here can reach anything else: the host decides where a
# connection goes. Frames: a kind byte (O open, D data, C close), a
# 4-byte connection id and a 4-byte length, big-endian, then the data.
import os
import socket
import struct
import sys
import threading

RELAY_PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 8786
MAX_CHUNK = 64 << 10

_out = os.fdopen(os.dup(1), 'wb', buffering=0)
_out_lock = threading.Lock()
_conns = {}  # type: dict[int, socket.socket]
_conns_lock = threading.Lock()


def _frame(kind, cid, data=b''):
    head = struct.pack('>cII', kind, cid, len(data))
    with _out_lock:
        _out.write(head + data)


def _pump(cid, sock):
    try:
        while True:
            data = sock.recv(MAX_CHUNK)
            if not data:
                break
            _frame(b'D', cid, data)
    except OSError:
        pass
    with _conns_lock:
        gone = _conns.pop(cid, None) is not None
    if gone:
        _frame(b'C', cid)
    sock.close()


def _accept(server):
    cid = 0
    while True:
        sock, _ = server.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cid += 1
        with _conns_lock:
            _conns[cid] = sock
        _frame(b'O', cid)
        threading.Thread(target=_pump, args=(cid, sock), daemon=True).start()


def _read_exact(f, n):
    buf = b''
    while len(buf) < n:
        chunk = f.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def main():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(('127.0.0.1', RELAY_PORT))
    server.listen(64)
    threading.Thread(target=_accept, args=(server,), daemon=True).start()
    _frame(b'R', os.getpid())  # ready, and the pid the kernel spares after an interrupt
    inp = os.fdopen(os.dup(0), 'rb', buffering=0)
    while True:
        head = _read_exact(inp, 9)
        if head is None:
            os._exit(0)  # the host went away
        kind, cid, n = struct.unpack('>cII', head)
        data = _read_exact(inp, n) if n else b''
        if data is None:
            os._exit(0)
        with _conns_lock:
            sock = _conns.get(cid)
            if kind == b'C':
                _conns.pop(cid, None)
        if sock is None:
            continue
        if kind == b'D':
            try:
                sock.sendall(data)
            except OSError:
                pass
        elif kind == b'C':
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


main()
