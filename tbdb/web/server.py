"""``tbdb serve``: run the explorer app under uvicorn."""
from __future__ import annotations

import errno
import ipaddress
import socket
import sys

from tbdb.errors import InvalidOptionError


def serve(db: str, host: str = "127.0.0.1", port: int = 8000) -> int:
    try:
        import uvicorn
        from tbdb.web.app import create_app
    except ImportError as exc:
        raise InvalidOptionError(f"tbdb serve needs the web extra ({exc.name!r} is missing): "
                                 "pip install 'tbdb[web]'") from None
    if not 0 < port < 65536:
        raise InvalidOptionError(f"port must be from 1 to 65535, not {port!r}")
    app = create_app(db)  # opens the file first: a bad --db is one line, before any banner
    # bind before the banner, and serve on these very sockets: a port in use or a host that
    # does not resolve is one line and exit 2, not a banner followed by uvicorn's exit 3
    sockets = listen(host, port)
    if not all(_loopback(s) for s in sockets):
        print(f"tbdb serve: warning: {host!r} is reachable from other machines and the API has "
              "no authentication: anyone who can reach it can read every table", file=sys.stderr)
    # read the games list, the samples and each game's tables now, so the first page and each
    # game's first lookup answer at once; connections wait in the listen backlog meanwhile
    print(f"tbdb serve: preparing {db} (games, their samples and each sample's lookup) ...",
          flush=True)
    took = app.state.explorer.prepare(say=lambda line: print(f"  {line}", flush=True))
    print(f"tbdb serve: prepared in {took:.1f} s", flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"tbdb serve: {db} at http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    try:
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=sockets)
    finally:
        for s in sockets:
            s.close()
    return 0


def listen(host: str, port: int) -> list[socket.socket]:
    """Listening TCP sockets on every address ``host`` resolves to, as asyncio's
    ``create_server`` (which uvicorn calls) would bind them; an error quoting ``host`` if any
    address cannot be bound."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InvalidOptionError(f"cannot listen on host {host!r}: the name does not "
                                 f"resolve ({reason})") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # '::' must not also take the IPv4 port
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL and len(infos) > 1:
                    # a family this machine has switched off ('localhost' -> ::1): asyncio
                    # skips it too, the other addresses serve
                    sockets.pop().close()
                    continue
                raise InvalidOptionError(f"cannot listen on host {host!r} port {port}: "
                                         f"{(exc.strerror or str(exc)).lower()}") from None
            sock.listen(2048)  # uvicorn's default backlog
        if not sockets:
            raise InvalidOptionError(f"cannot listen on host {host!r} port {port}: no address "
                                     "of it belongs to this machine")
    except BaseException:
        for s in sockets:
            s.close()
        raise
    return sockets


def _loopback(sock: socket.socket) -> bool:
    address = sock.getsockname()[0].split("%")[0]  # an IPv6 zone ('fe80::1%eth0')
    return ipaddress.ip_address(address).is_loopback
