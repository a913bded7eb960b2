"""Loading a picture an agent named by URL, once the person asked (Enter on the picture).

Only http and https; the body is read at most `MAX_PICTURE_BYTES` (a larger one is refused, not
cut) within `LOAD_SECONDS`; the reply must say it is an image. What comes back is only drawn
(`widgets.picture` decodes it within its pixel limit). UI thread starts it as a worker.
"""

from __future__ import annotations

import httpx

from tandem.core.sanitize import sanitize

__all__ = ["LOAD_SECONDS", "MAX_PICTURE_BYTES", "PictureLoadError", "fetch_picture"]

MAX_PICTURE_BYTES = 16 * 1024 * 1024
LOAD_SECONDS = 15.0


class PictureLoadError(Exception):
    """The picture could not be loaded; the message says why in one line."""


async def fetch_picture(url: str, *, limit: int = MAX_PICTURE_BYTES, client: httpx.AsyncClient | None = None) -> bytes:
    """The bytes at `url`.

    Raises:
        PictureLoadError: not http(s), a non-2xx answer, not an image, over `limit`, or a network error.
    """
    if httpx.URL(url).scheme not in ("http", "https"):
        raise PictureLoadError("only http and https pictures are loaded")
    owned = client is None
    client = client or httpx.AsyncClient(timeout=LOAD_SECONDS, follow_redirects=True)
    try:
        async with client.stream("GET", url) as response:
            if not response.is_success:
                raise PictureLoadError(f"the server answered {response.status_code}")
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if not kind.startswith("image/"):
                raise PictureLoadError(f"the server sent {sanitize(kind) or 'no type'}, not a picture")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > limit:
                    raise PictureLoadError(f"the picture is larger than {limit // (1024 * 1024)} MB")
            return bytes(body)
    except httpx.HTTPError as exc:
        raise PictureLoadError(f"could not load it: {sanitize(type(exc).__name__)}") from None
    finally:
        if owned:
            await client.aclose()
