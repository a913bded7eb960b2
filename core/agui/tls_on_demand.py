"""An httpx transport that loads TLS certificates only when an https:// request needs them.

httpx builds a verifying SSL context, CA bundle included, when a client is created: about 0.1–0.2 s
of CPU, paid before `tandem ask` can print its first byte, even against the http:// server on
127.0.0.1 that most people run their agent on. This transport builds that context on the first
https:// request instead, and sends http:// requests through a transport that never loads it.
"""

from __future__ import annotations

import httpx


class TlsOnDemandTransport(httpx.AsyncBaseTransport):
    """Owns two lazily built `httpx.AsyncHTTPTransport`s: one for http:// (no certificates loaded,
    since no TLS is spoken) and one for https:// (httpx's defaults: verified against the CA bundle,
    `SSL_CERT_FILE`/`SSL_CERT_DIR` honoured). Each request goes to the one its own URL's scheme
    needs, so a redirect to https:// is verified as it would be without this transport.
    """

    def __init__(self) -> None:
        self._plain: httpx.AsyncHTTPTransport | None = None
        self._tls: httpx.AsyncHTTPTransport | None = None

    def _transport_for(self, url: httpx.URL) -> httpx.AsyncHTTPTransport:
        if url.scheme == "http":
            if self._plain is None:
                # verify=False only skips loading the CA bundle: plain HTTP never uses the context.
                self._plain = httpx.AsyncHTTPTransport(verify=False)
            return self._plain
        if self._tls is None:
            self._tls = httpx.AsyncHTTPTransport()
        return self._tls

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._transport_for(request.url).handle_async_request(request)

    async def aclose(self) -> None:
        for transport in (self._plain, self._tls):
            if transport is not None:
                await transport.aclose()
