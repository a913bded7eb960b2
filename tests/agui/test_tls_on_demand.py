"""TlsOnDemandTransport: http:// loads no certificates; https:// is verified as httpx's default is.

Real servers on 127.0.0.1 (the standard library's, one of them behind TLS with a certificate made
here by `openssl`), real httpx clients.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from tandem.core.agui.tls_on_demand import TlsOnDemandTransport
from tandem.core.agui.transport import HttpTransport


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _served(context: ssl.SSLContext | None = None) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate for the TLS server")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def _server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


async def test_a_plain_http_request_builds_no_tls_transport() -> None:
    transport = TlsOnDemandTransport()
    with _served() as port:
        async with httpx.AsyncClient(transport=transport) as client:
            response = await client.get(f"http://127.0.0.1:{port}/")
    assert response.text == "hello"
    assert transport._tls is None  # no CA bundle was loaded


def test_the_http_transport_of_the_client_uses_it() -> None:
    transport = HttpTransport("http://127.0.0.1:1/agent")
    assert isinstance(transport._client._transport, TlsOnDemandTransport)


async def test_https_is_verified_a_self_signed_certificate_is_refused(certificate: tuple[Path, Path]) -> None:
    with _served(_server_context(certificate)) as port:
        async with httpx.AsyncClient(transport=TlsOnDemandTransport()) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(f"https://127.0.0.1:{port}/")


async def test_https_trusts_what_ssl_cert_file_names(certificate: tuple[Path, Path],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # As httpx's own default transport does (trust_env): a private CA named in the environment.
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    transport = TlsOnDemandTransport()
    with _served(_server_context(certificate)) as port:
        async with httpx.AsyncClient(transport=transport) as client:
            response = await client.get(f"https://127.0.0.1:{port}/")
    assert response.text == "hello"
    assert transport._plain is None
