"""Just enough of curl's command line to send the specs' examples as written: ``-X``, ``-H``,
``-d`` and the URL, whose ``http://localhost:8000`` is replaced by the test server's address."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import httpx

SPEC_HOST = "http://localhost:8000"


@dataclass
class CurlRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    data: str | None = None

    def send(self, client: httpx.Client, base_url: str) -> httpx.Response:
        url = self.url.replace(SPEC_HOST, base_url.rstrip("/"), 1)
        return client.request(self.method, url, headers=self.headers, content=self.data)


def parse(command: str) -> CurlRequest:
    words = shlex.split(command.replace("\\\n", " "))
    assert words[0] == "curl", command
    method, url, headers, data = "GET", "", {}, None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "-X":
            method, i = words[i + 1], i + 2
        elif word == "-H":
            name, _, value = words[i + 1].partition(":")
            headers[name.strip()] = value.strip()
            i += 2
        elif word == "-d":
            data, i = words[i + 1], i + 2
            method = "POST" if method == "GET" else method
        else:
            url, i = word, i + 1
    return CurlRequest(method, url, headers, data)
