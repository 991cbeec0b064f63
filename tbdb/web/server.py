"""``tbdb serve``: run the explorer app under uvicorn."""
from __future__ import annotations

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
    shown = f"[{host}]" if ":" in host else host
    print(f"tbdb serve: {db} at http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
