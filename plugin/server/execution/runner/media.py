"""`Media`: image, audio and embedded-resource content of a tool result, as programs see it
(SPEC §14). Loaded by runner.py next to it; programs get the class by name."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any


class Media:
    """Non-text content of a tool result. .type: image, audio or resource; .mime_type; .size
    (bytes); .data: base64 str (None for a text resource); .text: a text resource's text; .uri:
    the resource's uri, if any; .bytes(): the decoded content."""

    __slots__ = ("data", "mime_type", "size", "text", "type", "uri")

    def __init__(self, type, mime_type=None, size=0, data=None, text=None, uri=None):
        self.type = type
        self.mime_type = mime_type
        self.size = size
        self.data = data
        self.text = text
        self.uri = uri

    def bytes(self):
        """The content as bytes (a text resource's text in UTF-8)."""
        if self.data is None:
            return (self.text or "").encode("utf-8")
        try:
            return base64.b64decode(self.data, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"this {self.type}'s data is not valid base64") from None

    def __repr__(self):
        what = " ".join(str(part) for part in (self.type, self.mime_type, self.uri) if part)
        return f"<Media {what}, {self.size} bytes>"


Media.__module__ = "__main__"


def from_result(value: Any) -> Any:
    """Turns the `_media` entries the parent attached to a result value into `Media` objects."""
    media = value.get("_media") if isinstance(value, dict) else None
    if isinstance(media, list):
        value["_media"] = [
            Media(
                item.get("type"),
                item.get("mime_type"),
                item.get("size", 0),
                item.get("data"),
                item.get("text"),
                item.get("uri"),
            )
            for item in media
            if isinstance(item, dict)
        ]
    return value


MAX_SHOWN_IMAGES = 4
MAX_SHOWN_BYTES = 4 * 1024 * 1024

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}
SHOWN_TYPES = tuple(_NAMES)


def _sniff(data: bytes) -> str | None:
    for signature, mime_type in _SIGNATURES:
        if data.startswith(signature):
            return mime_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def make_show(send: Callable[[str, str], None]) -> Callable[..., None]:
    """The program's show(): `send(mime_type, base64_data)` passes an image to the parent."""
    shown = {"count": 0, "bytes": 0}

    def show(media_or_bytes, mime_type=None):
        """Return a PNG, JPEG, GIF or WebP image (a Media image, or its bytes) to the user after
        the output; at most 4 images and 4 MiB per run."""
        if isinstance(media_or_bytes, Media):
            data = media_or_bytes.bytes()
            mime_type = mime_type or media_or_bytes.mime_type
        elif isinstance(media_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(media_or_bytes)
        else:
            raise TypeError(f"show() takes a Media object or bytes, not {type(media_or_bytes).__name__}")
        found = _sniff(data)
        mime_type = mime_type or found
        if mime_type not in SHOWN_TYPES:
            raise ValueError(
                f"show() shows PNG, JPEG, GIF and WebP images only (got {mime_type or 'unknown content'})"
            )
        if not data:
            raise ValueError("show() got an empty image")
        if found != mime_type:
            what = f"a {_NAMES[found]} image" if found else "no PNG, JPEG, GIF or WebP image"
            raise ValueError(f"show(): the bytes are {what}, not {mime_type}")
        if shown["count"] >= MAX_SHOWN_IMAGES:
            raise ValueError(f"show() can return at most {MAX_SHOWN_IMAGES} images per run")
        if shown["bytes"] + len(data) > MAX_SHOWN_BYTES:
            raise ValueError(
                f"show(): images over {MAX_SHOWN_BYTES // (1024 * 1024)} MiB in total per run;"
                " show fewer or smaller images"
            )
        shown["count"] += 1
        shown["bytes"] += len(data)
        send(mime_type, base64.b64encode(data).decode("ascii"))

    return show
