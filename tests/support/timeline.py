"""A clock tests move by hand (``Clock(Timeline(start))``), for jobs that run on dates."""

from __future__ import annotations

from datetime import datetime, timedelta


class Timeline:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def days(self, n: float) -> None:
        self.now += timedelta(days=n)
