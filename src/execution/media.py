"""`Media`: image, audio and embedded-resource content of a tool result, as programs see it
(SPEC §14). Loaded by runner.py next to it; programs get the class by name."""

import base64
import binascii


class Media:
    """Non-text content of a tool result. .type: image, audio or resource; .mime_type; .size
    (bytes); .data: base64 str (None for a text resource); .text: a text resource's text; .uri:
    the resource's uri, if any; .bytes(): the decoded content."""

    __slots__ = ("type", "mime_type", "size", "data", "text", "uri")

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


def from_result(value):
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
