"""``tbdb serve``: the explorer page and the read-only JSON API (``tbdb.web.app``)."""
