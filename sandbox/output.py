"""A bounded record of a job's stdout+stderr: counts every byte, keeps only the head and the tail."""

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class OutputRecord:
    def __init__(self, budget: int, keep: int = 8192):
        self.budget = budget
        self.keep = keep
        self.total = 0
        self.head = bytearray()
        self.tail = bytearray()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.keep)]

    @property
    def exceeded(self) -> bool:
        return self.total > self.budget

    def text(self) -> str:
        """Head and tail as text. Control characters become U+FFFD, so the text stays within 3 bytes of
        UTF-8 JSON per byte kept, whatever the job printed (the zygote's control messages are capped)."""
        omitted = self.total - len(self.head) - len(self.tail)
        middle = f"\n... ({omitted} bytes omitted) ...\n".encode() if omitted > 0 else b""
        text = (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", errors="replace")
        return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)
