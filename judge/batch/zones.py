"""The course's time zone: which zone the times that carry none (a Moodle worksheet's, a CSV's, a deadline) are read in.

A Moodle worksheet writes its times in the site's zone with no offset; read as UTC, a course in Asia/Shanghai made
everyone who handed in on the last evening a day late. So a zone-less time is read in `--timezone`, else, for the
times files, in the offset the deadline carries, else in this machine's zone; and the run says which, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_OFFSET = re.compile(r"^UTC(?P<sign>[+-])(?P<h>\d{2}):(?P<m>\d{2})$")


def zone_of(name: str) -> tzinfo:
    """An IANA zone (Asia/Shanghai), or a fixed offset as `offset_name` writes it (UTC+08:00); ValueError if neither."""
    if match := _OFFSET.match(name):
        delta = timedelta(hours=int(match["h"]), minutes=int(match["m"]))
        return timezone(-delta if match["sign"] == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}: give an IANA name such as Asia/Shanghai") from None


def offset_name(when: datetime) -> str:
    """The fixed zone of an aware time, as zone_of reads it back: UTC+08:00."""
    offset = when.utcoffset() or timedelta(0)
    sign, minutes = ("-", -offset) if offset < timedelta(0) else ("+", offset)
    hours, rest = divmod(int(minutes.total_seconds()) // 60, 60)
    return f"UTC{sign}{hours:02d}:{rest:02d}"


def machine_zone() -> str:
    """This machine's zone as an IANA name (TZ, /etc/timezone, /etc/localtime: tzlocal), else its current offset."""
    import tzlocal  # noqa: PLC0415 - only a run that needs the machine's zone reads it

    try:
        name = tzlocal.get_localzone_name()
    except Exception:  # noqa: BLE001 - tzlocal raises its own errors for a misconfigured machine: fall back
        name = None
    return name or offset_name(datetime.now().astimezone())


@dataclass(frozen=True)
class CourseZone:
    """The zone chosen for zone-less times, and the one line the run says about it ("" when nothing needed one)."""

    name: str
    note: str = ""

    @property
    def tz(self) -> tzinfo:
        return zone_of(self.name)


def choose_zone(given: str | None, deadline: datetime | None, zoneless: list[str]) -> CourseZone:
    """The course's zone: --timezone; else, when the deadline carries an offset, that offset (a worksheet's zone-less
    times are the site's, as the deadline is); else this machine's zone.

    zoneless: what holds times without a zone ("--worksheet", "--deadline", ...): the note says how they are read."""
    if given:
        return CourseZone(given)
    what = ", ".join(zoneless)
    if deadline is not None and deadline.tzinfo is not None:
        name = offset_name(deadline)
        note = (
            f"the times of {what} carry no zone: read in {name}, the --deadline's offset; give --timezone ZONE "
            "(an IANA name such as Asia/Shanghai) to choose"
        )
        return CourseZone(name, note if zoneless else "")
    name = machine_zone()
    note = (
        f"the times of {what} carry no zone: read in {name}, this machine's zone (TZ, else /etc/localtime); give "
        "--timezone ZONE (an IANA name such as Asia/Shanghai) to choose"
    )
    return CourseZone(name, note if zoneless else "")


def parse_moment(text: str) -> datetime:
    """An ISO 8601 time or date (2026-03-01T23:59, 2026-03-01 23:59+08:00; 2026-03-01 is the end of that day), with
    the zone it carries or none (in_zone reads it in the course's); ValueError if it is not one."""
    when = datetime.fromisoformat(text.strip())
    if len(text.strip()) == 10:  # a date alone: the end of that day
        when = when + timedelta(days=1) - timedelta(seconds=1)
    return when


def in_zone(when: datetime, zone: tzinfo) -> datetime:
    """A time as read in the course's zone: a zone-less one is taken to be that zone's wall clock."""
    return when.replace(tzinfo=zone) if when.tzinfo is None else when


def shown(when: datetime | None, zone: tzinfo | None) -> str:
    """A hand-in time or a deadline as grades.csv and the class report show it: in the course's zone, with its offset
    (2026-11-28T23:40+08:00)."""
    if when is None:
        return ""
    return (when.astimezone(zone) if zone is not None else when).isoformat(timespec="minutes")
