"""Date formats, date math and time zones as Elasticsearch 8 reads them (`engines/embedded/dates.py`).

The expectations are Elasticsearch's own: its unit tests JavaDateMathParserTests and DateFormattersTests (the
parser they use, `date_optional_time||epoch_millis`, and their inputs and results), its documentation of the
built-in formats, and java.time's pattern rules; then the engine end to end: a mapping `format`, range bounds, a
gauss decay, term and sort on a date field, dynamic date detection, and the refusal of a value no format reads.
"""

from __future__ import annotations

import dataclasses
import math
import re
from datetime import UTC, date, datetime
from typing import Any

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.dates import (
    DEFAULT_DYNAMIC_DATE_FORMATS,
    DEFAULT_FORMAT,
    DateFormatError,
    DateParseError,
    date_format,
    detect_date,
    parse_math,
    time_zone,
)
from pytest_relevance.errors import RelevanceInputError

ES_TEST_PARSER = "date_optional_time||epoch_millis"  # JavaDateMathParserTests' parser


def millis(iso: str) -> int:
    """An expected instant written as ISO 8601 (UTC unless it says otherwise)."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def math_millis(text: str, round_up: bool = False, zone: str | None = None, fmt: str = ES_TEST_PARSER) -> int:
    instant = parse_math(text, date_format(fmt), round_up, time_zone(zone) if zone else None, now_millis=NOW)
    return instant.nanos // 1_000_000


def read(fmt: str, text: str, round_up: bool = False) -> int:
    return date_format(fmt).instant(text, round_up).nanos // 1_000_000


NOW = millis("2014-11-18T14:27:32")


# JavaDateMathParserTests -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2014-05-30", "2014-05-30T00:00:00.000"),
        ("2014-05-30T20", "2014-05-30T20:00:00.000"),
        ("2014-05-30T20:21", "2014-05-30T20:21:00.000"),
        ("2014-05-30T20:21:35", "2014-05-30T20:21:35.000"),
        ("2014-05-30T20:21:35.123", "2014-05-30T20:21:35.123"),
        # testTimezone: in the text, with every way of writing a zero offset
        ("2014-05-30T20:21+02:00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21+00:00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21+00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21+0000", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21-00:00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21-00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21-0000", "2014-05-30T18:21:00.000"),
        # testBasicMath
        ("2014-11-18||+y", "2015-11-18"),
        ("2014-11-18||-2y", "2012-11-18"),
        ("2014-11-18||+3M", "2015-02-18"),
        ("2014-11-18||-M", "2014-10-18"),
        ("2014-11-18||+1w", "2014-11-25"),
        ("2014-11-18||-3w", "2014-10-28"),
        ("2014-11-18||+22d", "2014-12-10"),
        ("2014-11-18||-423d", "2013-09-21"),
        ("2014-11-18T14||+13h", "2014-11-19T03:00"),
        ("2014-11-18T14||-1H", "2014-11-18T13:00"),
        ("2014-11-18T14:27||+10240m", "2014-11-25T17:07"),
        ("2014-11-18T14:27:32||-3600s", "2014-11-18T13:27:32"),
        # testLenientEmptyMath, testMultipleAdjustments
        ("2014-05-30T20:21||", "2014-05-30T20:21:00.000"),
        ("2014-11-18||+1M-1M", "2014-11-18"),
        ("2014-11-18||+1M-1m", "2014-12-17T23:59"),
        ("2014-11-18||-1m+1M", "2014-12-17T23:59"),
        ("2014-11-18||+1M/M", "2014-12-01"),
        ("2014-11-18||+1M/M+1h", "2014-12-01T01:00"),
        # testTimestamps: a number of up to five digits is a year for date_optional_time, longer ones epoch millis
        ("1418248078000", "2014-12-10T21:47:58.000"),
        ("32484216259000", "2999-05-20T17:24:19.000"),
        ("1418248078000||/m", "2014-12-10T21:47:00.000"),
        ("9999", "9999-01-01T00:00:00.000"),
        ("1000000000", "1970-01-12T13:46:40.000"),
        # testNow, with the clock at 2014-11-18T14:27:32
        ("now", "2014-11-18T14:27:32"),
        ("now+M", "2014-12-18T14:27:32"),
        ("now-2d", "2014-11-16T14:27:32"),
        ("now/m", "2014-11-18T14:27"),
        ("now/M", "2014-11-01T00:00:00"),
    ],
)
def test_dates_and_date_math_as_java_date_math_parser_reads_them(text: str, expected: str) -> None:
    assert math_millis(text) == millis(expected)


def test_years_beyond_9999_are_read_as_java_time_reads_them() -> None:
    # testTimestamps: "10000" is the year 10000 for date_optional_time, and so is "10000-01-01T"
    year_10000 = (date(9999, 12, 31).toordinal() - date(1970, 1, 1).toordinal() + 1) * 86_400_000
    assert math_millis("10000") == year_10000
    assert math_millis("10000-01-01T") == year_10000


@pytest.mark.parametrize(
    ("text", "round_up", "zone", "expected"),
    [
        # testRoundingDoesNotAffectExactDate
        ("2014-11-12T22:55:00.000Z", True, None, "2014-11-12T22:55:00.000Z"),
        ("2014-11-12T22:55:00.000", True, "+01:00", "2014-11-12T21:55:00.000Z"),
        ("2014-11-12T22:55:00.000+01:00", False, None, "2014-11-12T21:55:00.000Z"),
        # testTimezone: the time zone given outside, and the one in the text winning over it
        ("2014-05-30T20:21", False, "+02:00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21", False, "+00", "2014-05-30T18:21:00.000"),
        ("2014-05-30T18:21", False, "-0000", "2014-05-30T18:21:00.000"),
        ("2014-05-30T20:21+03:00", False, "-08:00", "2014-05-30T17:21:00.000"),
        ("2014-05-30T20:21Z", False, "-08:00", "2014-05-30T20:21:00.000"),
        # testNow: rounding up, and the time zone does not move now
        ("now+M", True, None, "2014-12-18T14:27:32"),
        ("now/m", True, None, "2014-11-18T14:27:59.999Z"),
        ("now/M", True, None, "2014-11-30T23:59:59.999Z"),
        ("now/m", False, "+02:00", "2014-11-18T14:27"),
        # testImplicitRounding: the round-up parser fills what the text leaves out with its largest value
        ("2014-11-18", True, None, "2014-11-18T23:59:59.999Z"),
        ("2014-11-18T09:20", True, None, "2014-11-18T09:20:59.999Z"),
        ("2014-11-18", False, "CET", "2014-11-17T23:00:00.000Z"),
        ("2014-11-18", True, "CET", "2014-11-18T22:59:59.999Z"),
        ("2014-11-18T09:20", True, "CET", "2014-11-18T08:20:59.999Z"),
        # testExplicitRounding
        ("2014-11-18||/y", False, None, "2014-01-01"),
        ("2014-11-18||/y", True, None, "2014-12-31T23:59:59.999"),
        ("2014-01-01T00:00:00.001||/y", True, None, "2014-12-31T23:59:59.999"),
        ("2014-11-18||/y", False, "CET", "2013-12-31T23:00:00.000Z"),
        ("2014-11-18||/y", True, "CET", "2014-12-31T22:59:59.999Z"),
        ("2014-11-18||/M", True, None, "2014-11-30T23:59:59.999"),
        ("2014-11||/M", False, None, "2014-11-01"),
        ("2014-11||/M", True, None, "2014-11-30T23:59:59.999"),
        ("2014-11-18||/M", False, "CET", "2014-10-31T23:00:00.000Z"),
        ("2014-11-18||/M", True, "CET", "2014-11-30T22:59:59.999Z"),
        ("2014-11-18T14||/w", False, None, "2014-11-17"),
        ("2014-11-18T14||/w", True, None, "2014-11-23T23:59:59.999"),
        ("2014-11-23T14||/w", False, None, "2014-11-17"),
        ("2014-11-18||/w", False, "+01:00", "2014-11-16T23:00:00.000Z"),
        ("2014-11-18||/w", False, "-01:00", "2014-11-17T01:00:00.000Z"),
        ("2014-11-18||/w", True, "CET", "2014-11-23T22:59:59.999Z"),
        ("2014-07-22||/w", False, "CET", "2014-07-20T22:00:00.000Z"),  # in summer time
        ("2014-11-18T14||/d", True, None, "2014-11-18T23:59:59.999"),
        ("2014-11-18T14:27||/h", False, None, "2014-11-18T14:00"),
        ("2014-11-18T14:27||/h", True, None, "2014-11-18T14:59:59.999"),
        ("2014-11-18T14||/H", True, None, "2014-11-18T14:59:59.999"),
        ("2014-11-18T14:27:32||/m", True, None, "2014-11-18T14:27:59.999"),
        ("2014-11-18T14:27:32.123||/s", False, None, "2014-11-18T14:27:32"),
        ("2014-11-18T14:27:32.123||/s", True, None, "2014-11-18T14:27:32.999"),
    ],
)
def test_rounding_and_time_zones_as_java_date_math_parser_applies_them(
    text: str, round_up: bool, zone: str | None, expected: str
) -> None:
    assert math_millis(text, round_up, zone) == millis(expected)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("2014-11-18||*5", "operator not supported"),
        ("2014-11-18||/2m", "rounding"),
        ("2014-11-18||+2a", "unit [a] not supported"),
        ("2014-11-18||+12", "truncated"),
        ("2014-11-18||-", "truncated"),
        ("92233720368547758070", "failed to parse date field"),
        ("123bogus", "failed to parse date field [123bogus]"),
    ],
)
def test_bad_date_math_is_elasticsearch_s_parse_error(text: str, said: str) -> None:
    with pytest.raises(DateParseError, match=re.escape(said)):
        math_millis(text)


def test_an_epoch_bound_is_shifted_by_the_time_zone_as_elasticsearch_8_does() -> None:
    # JavaDateMathParser.parseDateTime applies withZoneSameLocal to every input without a zone of its own, epoch
    # values included (elastic/elasticsearch#148663 stopped that after 8)
    assert math_millis("1577836800000", zone="+01:00") == millis("2019-12-31T23:00:00Z")
    assert math_millis("1577836800000", zone="UTC") == millis("2020-01-01T00:00:00Z")
    assert math_millis("1577836800000") == millis("2020-01-01T00:00:00Z")


def test_merging_of_multiple_parsers_rounds_up_with_each_of_them() -> None:
    # testMergingOfMultipleParsers: date_time has 2 parsers, date_time_no_millis 4; the round-up fills the millis
    fmt = "date_time||date_time_no_millis"
    assert math_millis("1970-01-01T00:00:00.0+00:00", True, fmt=fmt) == 0
    assert math_millis("1970-01-01T00:00:00.0+0000", True, fmt=fmt) == 0
    assert math_millis("1970-01-01T00:00:00+00:00", True, fmt=fmt) == 999
    assert math_millis("1970-01-01T00:00:00+0000", True, fmt=fmt) == 999
    assert math_millis("1970-01-01T00:00:00UTC+00:00", True, fmt=fmt) == 999
    assert math_millis("1970-01-01T00:00:00", True, fmt=fmt) == 999


def test_a_time_alone_falls_on_1970_01_01_and_week_dates_on_their_monday() -> None:
    # testRoundingPreservesEpochAsBaseDate and testWeekDates (ISO weeks: Monday first, four days in week one)
    assert math_millis("04:52:20", fmt="HH:mm:ss") == millis("1970-01-01T04:52:20")
    assert math_millis("04:52:20", True, fmt="HH:mm:ss") == millis("1970-01-01T04:52:20.999")
    assert math_millis("2016-01", True, fmt="YYYY-ww") == millis("2016-01-04T23:59:59.999")
    assert math_millis("2016", True, fmt="YYYY") == millis("2016-01-04T23:59:59.999")
    assert math_millis("2015-01", True, fmt="YYYY-ww") == millis("2014-12-29T23:59:59.999")
    assert math_millis("2015", fmt="YYYY") == millis("2014-12-29")


def test_now_needs_the_frozen_clock_and_its_iso_anchor_is_read_in_any_field_format() -> None:
    with pytest.raises(DateParseError, match="frozen clock"):
        parse_math("now-1d", date_format(DEFAULT_FORMAT), False)
    # templates write `now` as the frozen instant, which a yyyy-MM-dd field could not read: it is still now
    anchored = parse_math("2026-01-15T12:00:00Z||-1d/d", date_format("yyyy-MM-dd"), False)
    assert anchored.nanos // 1_000_000 == millis("2026-01-14")
    with pytest.raises(DateParseError):  # any other text the format cannot read is refused
        parse_math("2026-01-15T12:00||-1d", date_format("yyyy-MM-dd"), False)


# DateFormattersTests ------------------------------------------------------------------------------------------------


def test_epoch_formats_read_fractions_and_round_up_to_the_unit() -> None:
    # testEpochMillisParser, testInvalidEpochMilliParser, testEpochSecondParserWithFraction
    assert date_format("epoch_millis").instant("12345").nanos == 12_345_000_000
    assert date_format("epoch_millis").instant("123.123456").nanos == 123_123_456
    assert date_format("epoch_second").instant("1234.1").nanos == 1_234_100_000_000
    for fmt, text in [("epoch_millis", "invalid"), ("epoch_millis", "123.1234567"), ("epoch_second", "abc"),
                      ("epoch_second", "1234.abc"), ("epoch_second", "1234.1234567890")]:  # fmt: skip
        with pytest.raises(DateParseError, match=rf"failed to parse date field \[{text}\] with format \[{fmt}\]"):
            date_format(fmt).instant(text)
    # testRoundupFormatterWithEpochDates
    assert date_format("epoch_millis").instant("1234567890", round_up=True).nanos == 1_234_567_890_999_999
    assert read("epoch_second", "1234567890", True) == 1234567890999
    assert read("strict_date_optional_time||epoch_second", "1234567890", True) == 1234567890999
    assert read("strict_date_optional_time||epoch_millis", "2018-10-10", True) == 1539215999999
    assert read("strict_date_optional_time||epoch_millis", "2019-01-25T15:37:17.346928Z", True) == 1548430637346
    assert read("uuuu-MM-dd'T'HH:mm:ss.SSS||epoch_second", "2018-10-10T12:13:14.123", True) == 1539173594123
    assert read(DEFAULT_FORMAT, "123") == 123  # testEpochMilliParsersWithDifferentFormatters


def test_fractions_offsets_and_the_8_prefix_as_date_formatters_reads_them() -> None:
    # testFractionalSeconds
    for digits, nanos in [("1", 100_000_000), ("12345", 123_450_000), ("123456789", 123_456_789)]:
        instant = date_format("strict_date_optional_time").instant(f"2019-05-06T14:52:37.{digits}Z")
        assert instant.nanos % 1_000_000_000 == nanos
    # testParsersWithMultipleInternalFormats, testNanoOfSecondWidth
    nanos = date_format("strict_date_optional_time_nanos")
    assert nanos.instant("2018-05-15T17:14:56+0100") == nanos.instant("2018-05-15T17:14:56+01:00")
    assert nanos.instant("1970-01-01T00:00:00.000000001").nanos == 1
    # testIso8601Parsing: a comma separates the fraction too
    iso = date_format("iso8601")
    assert iso.instant("2018-05-15T17:14:56,123456+01:00").nanos == iso.instant("2018-05-15T16:14:56.123456Z").nanos
    assert read("iso8601", "2018-05-15T17Z") == millis("2018-05-15T17:00:00Z")
    # testSupportBackwardsJava8Format
    assert read("8yyyy-MM-dd", "2018-05-15") == read("8date_optional_time", "2018-05-15") == millis("2018-05-15")


# every named format ---------------------------------------------------------------------------------------------

FORMAT_NAMES = {
    "basic_date": ("20240301", "2024-03-01"),
    "basic_date_time": ("20240301T101112.345Z", "2024-03-01T10:11:12.345Z"),
    "basic_date_time_no_millis": ("20240301T101112+0100", "2024-03-01T09:11:12Z"),
    "basic_ordinal_date": ("2024061", "2024-03-01"),
    "basic_ordinal_date_time": ("2024061T101112.345Z", "2024-03-01T10:11:12.345Z"),
    "basic_ordinal_date_time_no_millis": ("2024061T101112Z", "2024-03-01T10:11:12Z"),
    "basic_time": ("101112.345Z", "1970-01-01T10:11:12.345Z"),
    "basic_time_no_millis": ("101112-02:00", "1970-01-01T12:11:12Z"),
    "basic_t_time": ("T101112.345Z", "1970-01-01T10:11:12.345Z"),
    "basic_t_time_no_millis": ("T101112Z", "1970-01-01T10:11:12Z"),
    "basic_week_date": ("2024W095", "2024-03-01"),
    "basic_week_date_time": ("2024W095T101112.345Z", "2024-03-01T10:11:12.345Z"),
    "basic_week_date_time_no_millis": ("2024W095T101112Z", "2024-03-01T10:11:12Z"),
    "date": ("2024-3-1", "2024-03-01"),
    "date_hour": ("2024-03-01T7", "2024-03-01T07:00Z"),
    "date_hour_minute": ("2024-03-01T10:11", "2024-03-01T10:11Z"),
    "date_hour_minute_second": ("2024-03-01T10:11:12", "2024-03-01T10:11:12Z"),
    "date_hour_minute_second_fraction": ("2024-03-01T10:11:12.3456", "2024-03-01T10:11:12.345Z"),
    "date_hour_minute_second_millis": ("2024-03-01T10:11:12.345", "2024-03-01T10:11:12.345Z"),
    "date_optional_time": ("2024-3-1T1:2", "2024-03-01T01:02Z"),
    "date_time": ("2024-03-01T10:11:12.345+01:00", "2024-03-01T09:11:12.345Z"),
    "date_time_no_millis": ("2024-03-01T10:11:12Z", "2024-03-01T10:11:12Z"),
    "hour": ("7", "1970-01-01T07:00Z"),
    "hour_minute": ("10:11", "1970-01-01T10:11Z"),
    "hour_minute_second": ("10:11:12", "1970-01-01T10:11:12Z"),
    "hour_minute_second_fraction": ("10:11:12.3", "1970-01-01T10:11:12.300Z"),
    "hour_minute_second_millis": ("10:11:12.345", "1970-01-01T10:11:12.345Z"),
    "iso8601": ("2024-03-01T10:11:12.345+01:00", "2024-03-01T09:11:12.345Z"),
    "ordinal_date": ("2024-61", "2024-03-01"),
    "ordinal_date_time": ("2024-061T10:11:12.345Z", "2024-03-01T10:11:12.345Z"),
    "ordinal_date_time_no_millis": ("2024-061T10:11:12Z", "2024-03-01T10:11:12Z"),
    "time": ("10:11:12.345Z", "1970-01-01T10:11:12.345Z"),
    "time_no_millis": ("10:11:12+01:00", "1970-01-01T09:11:12Z"),
    "t_time": ("T10:11:12.345Z", "1970-01-01T10:11:12.345Z"),
    "t_time_no_millis": ("T10:11:12Z", "1970-01-01T10:11:12Z"),
    "week_date": ("2024-W9-5", "2024-03-01"),
    "week_date_time": ("2024-W09-5T10:11:12.345Z", "2024-03-01T10:11:12.345Z"),
    "week_date_time_no_millis": ("2024-W09-5T10:11:12Z", "2024-03-01T10:11:12Z"),
    "week_year": ("2024", "2024-01-01"),
    "weekyear_week": ("2024-W9", "2024-02-26"),
    "weekyear_week_day": ("2024-W09-5", "2024-03-01"),
    "year": ("2024", "2024-01-01"),
    "year_month": ("2024-3", "2024-03-01"),
    "year_month_day": ("2024-3-1", "2024-03-01"),
    "epoch_second": ("1709287872", "2024-03-01T10:11:12Z"),
    "epoch_millis": ("1709287872345", "2024-03-01T10:11:12.345Z"),
    "strict_basic_week_date": ("2024W095", "2024-03-01"),
    "strict_basic_week_date_time": ("2024W095T101112.345Z", "2024-03-01T10:11:12.345Z"),
    "strict_basic_week_date_time_no_millis": ("2024W095T101112Z", "2024-03-01T10:11:12Z"),
    "strict_date": ("2024-03-01", "2024-03-01"),
    "strict_date_hour": ("2024-03-01T07", "2024-03-01T07:00Z"),
    "strict_date_hour_minute": ("2024-03-01T10:11", "2024-03-01T10:11Z"),
    "strict_date_hour_minute_second": ("2024-03-01T10:11:12", "2024-03-01T10:11:12Z"),
    "strict_date_hour_minute_second_fraction": ("2024-03-01T10:11:12.3", "2024-03-01T10:11:12.300Z"),
    "strict_date_hour_minute_second_millis": ("2024-03-01T10:11:12.345", "2024-03-01T10:11:12.345Z"),
    "strict_date_optional_time": ("2024-03-01T10:11:12.345+0100", "2024-03-01T09:11:12.345Z"),
    "strict_date_optional_time_nanos": ("2024-03-01T10:11:12.345678901Z", "2024-03-01T10:11:12.345Z"),
    "strict_date_time": ("2024-03-01T10:11:12.345Z", "2024-03-01T10:11:12.345Z"),
    "strict_date_time_no_millis": ("2024-03-01T10:11:12Europe/Paris", "2024-03-01T09:11:12Z"),
    "strict_hour": ("07", "1970-01-01T07:00Z"),
    "strict_hour_minute": ("10:11", "1970-01-01T10:11Z"),
    "strict_hour_minute_second": ("10:11:12", "1970-01-01T10:11:12Z"),
    "strict_hour_minute_second_fraction": ("10:11:12.345", "1970-01-01T10:11:12.345Z"),
    "strict_hour_minute_second_millis": ("10:11:12.345", "1970-01-01T10:11:12.345Z"),
    "strict_ordinal_date": ("2024-061", "2024-03-01"),
    "strict_ordinal_date_time": ("2024-061T10:11:12.345Z", "2024-03-01T10:11:12.345Z"),
    "strict_ordinal_date_time_no_millis": ("2024-061T10:11:12Z", "2024-03-01T10:11:12Z"),
    "strict_time": ("10:11:12.345Z", "1970-01-01T10:11:12.345Z"),
    "strict_time_no_millis": ("10:11:12Z", "1970-01-01T10:11:12Z"),
    "strict_t_time": ("T10:11:12.345Z", "1970-01-01T10:11:12.345Z"),
    "strict_t_time_no_millis": ("T10:11:12Z", "1970-01-01T10:11:12Z"),
    "strict_week_date": ("2024-w09-5", "2024-03-01"),
    "strict_week_date_time": ("2024-W09-5T10:11:12.345Z", "2024-03-01T10:11:12.345Z"),
    "strict_week_date_time_no_millis": ("2024-W09-5T10:11:12Z", "2024-03-01T10:11:12Z"),
    "strict_weekyear": ("2024", "2024-01-01"),
    "strict_weekyear_week": ("2024-W09", "2024-02-26"),
    "strict_weekyear_week_day": ("2024-W09-5", "2024-03-01"),
    "strict_year": ("2024", "2024-01-01"),
    "strict_year_month": ("2024-03", "2024-03-01"),
    "strict_year_month_day": ("2024-03-01", "2024-03-01"),
}
# FormatNames' snake_case names in Elasticsearch 8, each of which a mapping may name
ELASTICSEARCH_FORMAT_NAMES = [
    "iso8601",
    "basic_date",
    "basic_date_time",
    "basic_date_time_no_millis",
    "basic_ordinal_date",
    "basic_ordinal_date_time",
    "basic_ordinal_date_time_no_millis",
    "basic_time",
    "basic_time_no_millis",
    "basic_t_time",
    "basic_t_time_no_millis",
    "basic_week_date",
    "basic_week_date_time",
    "basic_week_date_time_no_millis",
    "date",
    "date_hour",
    "date_hour_minute",
    "date_hour_minute_second",
    "date_hour_minute_second_fraction",
    "date_hour_minute_second_millis",
    "date_optional_time",
    "date_time",
    "date_time_no_millis",
    "hour",
    "hour_minute",
    "hour_minute_second",
    "hour_minute_second_fraction",
    "hour_minute_second_millis",
    "ordinal_date",
    "ordinal_date_time",
    "ordinal_date_time_no_millis",
    "time",
    "time_no_millis",
    "t_time",
    "t_time_no_millis",
    "week_date",
    "week_date_time",
    "week_date_time_no_millis",
    "week_year",
    "weekyear_week",
    "weekyear_week_day",
    "year",
    "year_month",
    "year_month_day",
    "epoch_second",
    "epoch_millis",
    "strict_basic_week_date",
    "strict_basic_week_date_time",
    "strict_basic_week_date_time_no_millis",
    "strict_date",
    "strict_date_hour",
    "strict_date_hour_minute",
    "strict_date_hour_minute_second",
    "strict_date_hour_minute_second_fraction",
    "strict_date_hour_minute_second_millis",
    "strict_date_optional_time",
    "strict_date_optional_time_nanos",
    "strict_date_time",
    "strict_date_time_no_millis",
    "strict_hour",
    "strict_hour_minute",
    "strict_hour_minute_second",
    "strict_hour_minute_second_fraction",
    "strict_hour_minute_second_millis",
    "strict_ordinal_date",
    "strict_ordinal_date_time",
    "strict_ordinal_date_time_no_millis",
    "strict_time",
    "strict_time_no_millis",
    "strict_t_time",
    "strict_t_time_no_millis",
    "strict_week_date",
    "strict_week_date_time",
    "strict_week_date_time_no_millis",
    "strict_weekyear",
    "strict_weekyear_week",
    "strict_weekyear_week_day",
    "strict_year",
    "strict_year_month",
    "strict_year_month_day",
]


def test_every_format_name_of_elasticsearch_is_read() -> None:
    assert sorted(FORMAT_NAMES) == sorted(ELASTICSEARCH_FORMAT_NAMES)


@pytest.mark.parametrize(("name", "case"), FORMAT_NAMES.items(), ids=list(FORMAT_NAMES))
def test_each_named_format_reads_its_documented_shape(name: str, case: tuple[str, str]) -> None:
    text, expected = case
    assert read(name, text) == millis(expected)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("strict_date", "2024-3-1"),  # strict: four-digit years, two-digit months and days
        ("strict_date_optional_time", "2024-03-01 10:11:12"),  # a space is not the T
        ("strict_date_optional_time", "12345-01-01"),  # more than four year digits need a '+'
        ("strict_date_hour_minute_second", "2024-03-01T10:11"),
        ("strict_date_time", "2024-03-01T10:11:12.345"),  # the offset is required
        ("basic_date", "2024-03-01"),
        ("epoch_millis", "2024-03-01"),
        ("strict_year_month_day", "2024-02-30"),  # no such day
        ("date_time_no_millis", "2024-03-01T24:00:00Z"),
    ],
)
def test_a_text_outside_a_named_format_is_refused(name: str, text: str) -> None:
    with pytest.raises(DateParseError, match=rf"with format \[{name}\]"):
        date_format(name).instant(text)


def test_the_iso_shortcut_reads_exactly_what_the_strict_date_optional_time_grammar_reads() -> None:
    (shortcut,) = date_format("strict_date_optional_time").parsers
    grammar_only = dataclasses.replace(shortcut, iso_shortcut=False)
    times = ["", "T00:00:00", "T23:59:59", "T24:00:00", "T10:60:00", "T10:11:12.1", "T10:11:12.123456789"]
    zones = ["", "Z", "+00:00", "-00:00", "+05:30", "-23:59", "+24:00", "+05:60", "+0530"]
    days = ["2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "0000-01-01", "9999-12-31", "2024-04-31"]
    for text in (d + t + (z if t else "") for d in days for t in times for z in zones):
        for round_up in (False, True):
            assert shortcut.read(text, round_up, UTC) == grammar_only.read(text, round_up, UTC), text
    wide = "\uff12\uff10\uff12\uff14-03-01"  # 2024 in full-width digits: java.time's DecimalStyle reads ASCII only
    assert shortcut.read(wide, False, UTC) is None


def test_camel_case_names_and_strict_date_s_lenient_resolution() -> None:
    assert read("strictDateOptionalTime", "2024-03-01") == read("dateOptionalTime", "2024-03-01")
    assert read("basicDateTimeNoMillis", "20240301T101112Z") == millis("2024-03-01T10:11:12Z")
    # strict_date is ISO_LOCAL_DATE with ResolverStyle.LENIENT: a day past the month's end rolls over
    assert read("strict_date", "2023-02-30") == millis("2023-03-02")


# java.time patterns -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("yyyy-MM-dd HH:mm:ss", "2024-03-01 10:11:12", "2024-03-01T10:11:12Z"),
        ("yyyy/MM/dd", "2024/03/01", "2024-03-01"),
        ("dd.MM.yyyy", "01.03.2024", "2024-03-01"),
        ("uuuuMMdd", "20240301", "2024-03-01"),  # adjacent values: the year leaves four digits to MM and dd
        ("yyyyMMddHHmmssSSS", "20240301101112345", "2024-03-01T10:11:12.345Z"),
        ("d/M/yyyy", "1/3/2024", "2024-03-01"),
        ("dd/MM/yy", "01/03/24", "2024-03-01"),  # two-digit years fall in 2000-2099
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2024-03-01T10:11:12.345+05:30", "2024-03-01T04:41:12.345Z"),
        ("yyyy-MM-dd'T'HH:mm:ssXXX", "2024-03-01T10:11:12Z", "2024-03-01T10:11:12Z"),
        ("yyyy-MM-dd'T'HH:mm:ssX", "2024-03-01T10:11:12-03", "2024-03-01T13:11:12Z"),
        ("yyyy-MM-dd'T'HH:mm:ssXX", "2024-03-01T10:11:12-0330", "2024-03-01T13:41:12Z"),
        ("yyyy-MM-dd'T'HH:mm:ssZ", "2024-03-01T10:11:12+0100", "2024-03-01T09:11:12Z"),
        ("yyyy-MM-dd'T'HH:mm:ssZZZZZ", "2024-03-01T10:11:12-01:00", "2024-03-01T11:11:12Z"),
        ("yyyy-MM-dd HH:mm:ss VV", "2024-07-01 10:11:12 Europe/Paris", "2024-07-01T08:11:12Z"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "2024-03-01T10:11:12.345678", "2024-03-01T10:11:12.345Z"),
        ("EEE, dd MMM yyyy HH:mm:ss Z", "Fri, 01 Mar 2024 10:11:12 +0000", "2024-03-01T10:11:12Z"),
        ("MMMM d, yyyy", "March 1, 2024", "2024-03-01"),
        ("hh:mm a, dd/MM/yyyy", "02:30 PM, 01/03/2024", "2024-03-01T14:30Z"),
        ("yyyy-MM-dd['T'HH:mm[:ss]]", "2024-03-01", "2024-03-01"),
        ("yyyy-MM-dd['T'HH:mm[:ss]]", "2024-03-01T10:11", "2024-03-01T10:11Z"),
        ("yyyy-MM-dd['T'HH:mm[:ss]]", "2024-03-01T10:11:12", "2024-03-01T10:11:12Z"),
        ("yyyy-MM-dd[ HH:mm:ss][XXX]", "2024-03-01+02:00", "2024-02-29T22:00Z"),
        ("'day' D 'of' yyyy", "day 61 of 2024", "2024-03-01"),
        ("yyyy-MM-dd'T'HH''mm", "2024-03-01T10'11", "2024-03-01T10:11Z"),  # '' is a quote
        ("yyyy-MM", "2024-03", "2024-03-01"),
        ("yyyy", "2024", "2024-01-01"),
    ],
)
def test_java_time_patterns_as_date_time_formatter_builder_reads_them(pattern: str, text: str, expected: str) -> None:
    assert read(pattern, text) == millis(expected)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy-MM-dd'T'HH:mm:ssZ", "2024-03-01T10:11:12Z"),  # Z is +HHMM with +0000 for zero: no letter Z
        ("yyyy-MM-dd", "2024-03-01 10:11"),  # the whole text must be read
        ("yyyy-MM-dd", "2024-13-01"),
        ("HH:mm", "24:00"),
        ("yyyy-MM-dd['T'HH:mm]", "2024-03-01T10"),  # an optional section is all or nothing
        ("EEE dd MMM yyyy", "fri 01 Mar 2024"),  # names are case-sensitive
        ("EEE dd MMM yyyy", "Thu 01 Mar 2024"),  # uuuu would check it; yyyy does not resolve a date either
    ],
)
def test_a_text_a_pattern_does_not_read_is_refused(pattern: str, text: str) -> None:
    if text.startswith("Thu"):  # java.time only cross-checks the day of week against a resolved uuuu date
        assert read(pattern, text) == millis("2024-03-01")
        with pytest.raises(DateParseError):
            date_format(pattern.replace("yyyy", "uuuu")).instant(text)
        return
    with pytest.raises(DateParseError):
        date_format(pattern).instant(text)


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("yyyy-MM-dd{", "Invalid format: [yyyy-MM-dd{]: Pattern includes reserved character: '{'"),
        ("yyyy-MM-dd]", "Pattern invalid as it contains ] without previous ["),
        ("yyyy-MM-dd'T", "Pattern ends with an incomplete string literal"),
        ("yyyy-MM-ddd", "Too many pattern letters: d"),
        ("yyyy-MM-dd b", "Unknown pattern letter: b"),
        ("yyyy-MM-dd||", "Cannot have empty element in multi date format pattern"),
        ("", "No date pattern provided"),
        ("yyyy G", "pattern letter 'G' (an era)"),
    ],
)
def test_a_bad_pattern_is_refused_with_java_time_s_reason(pattern: str, said: str) -> None:
    with pytest.raises(DateFormatError, match=re.escape(said)):
        date_format(pattern)


def test_a_list_is_tried_in_order_and_the_round_up_parser_fills_each_pattern_s_gaps() -> None:
    fmt = "yyyy-MM-dd HH:mm:ss||yyyy-MM-dd||epoch_millis"
    assert read(fmt, "2024-03-01 10:11:12") == millis("2024-03-01T10:11:12Z")
    assert read(fmt, "2024-03-01") == millis("2024-03-01")
    assert read(fmt, "1709287872345") == 1709287872345
    assert read(fmt, "2024-03-01", round_up=True) == millis("2024-03-01T23:59:59.999Z")
    assert read(fmt, "2024-03-01 10:11:12", round_up=True) == millis("2024-03-01T10:11:12.999Z")
    # the round-up parser defaults month and day to 1, not to their largest value, as Elasticsearch's does
    assert read("yyyy-MM", "2024-03", round_up=True) == millis("2024-03-01T23:59:59.999Z")


def test_time_zones_as_zone_id_of_reads_them() -> None:
    when = datetime(2024, 7, 1)
    for text, hours in [("+01:00", 1), ("-0530", -5.5), ("+5", 5), ("Z", 0), ("UTC", 0), ("GMT+02:00", 2),
                        ("Europe/Paris", 2), ("America/New_York", -4)]:  # fmt: skip
        offset = time_zone(text).utcoffset(when)
        assert offset is not None and offset.total_seconds() == hours * 3600
    for bad in ("Mars/Olympus", "+25:00", "+1:2"):
        with pytest.raises(DateFormatError):
            time_zone(bad)


def test_dynamic_date_detection_with_the_default_formats() -> None:
    assert DEFAULT_DYNAMIC_DATE_FORMATS == ("strict_date_optional_time", "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z")
    assert detect_date("2024-03-01T10:11:12Z", DEFAULT_DYNAMIC_DATE_FORMATS) == "strict_date_optional_time"
    assert detect_date("2024/03/01 10:11:12 +0000", DEFAULT_DYNAMIC_DATE_FORMATS) == DEFAULT_DYNAMIC_DATE_FORMATS[1]
    assert detect_date("2024/03/01 +0100", DEFAULT_DYNAMIC_DATE_FORMATS) == DEFAULT_DYNAMIC_DATE_FORMATS[1]
    # DynamicFieldsBuilder refuses pure numbers (strict_date_optional_time would read "2024" as a year)
    for text in ("2024", "1709287872345", "1.5", "red shoes", "2024/03/01"):
        assert detect_date(text, DEFAULT_DYNAMIC_DATE_FORMATS) is None


# end to end in the embedded engine --------------------------------------------------------------------------------

MAPPED = {"mappings": {"properties": {
    "id": {"type": "keyword"},
    "title": {"type": "text"},
    "published": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss||yyyy-MM-dd||epoch_millis"},
}}}  # fmt: skip
DOCS = [
    {"id": "a", "title": "news", "published": "2024-03-01 10:00:00"},
    {"id": "b", "title": "news", "published": "2024-03-02"},
    {"id": "c", "title": "news", "published": 1709596800000},  # 2024-03-05T00:00:00Z
    {"id": "d", "title": "news", "published": "2024-02-28 23:59:59"},
    {"id": "e", "title": "news"},
]


@pytest.fixture(scope="module")
def dated() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPED, "id", "index.yaml")


def search(index: EmbeddedIndex, body: dict[str, Any]) -> list[tuple[str, float]]:
    return index.search_many({"q": body}, 10, "query.yaml")["q"]


def matched(index: EmbeddedIndex, query: dict[str, Any]) -> list[str]:
    return sorted(doc for doc, _ in search(index, {"query": query}))


def test_documents_are_read_with_the_mapping_s_format(dated: EmbeddedIndex) -> None:
    column = dated.doc_values("published")
    assert column is not None
    stored = dict(zip(dated.ids, column.tolist(), strict=True))
    assert stored["a"] == millis("2024-03-01T10:00:00Z")
    assert stored["b"] == millis("2024-03-02")
    assert stored["c"] == 1709596800000
    assert math.isnan(stored["e"])


def test_range_bounds_use_the_field_s_format_round_up_rules_and_the_query_s_own_format(dated: EmbeddedIndex) -> None:
    published = "published"
    # lte reads 2024-03-02 with the round-up parser (its last millisecond), lt and gte at its first
    assert matched(dated, {"range": {published: {"gte": "2024-03-01", "lte": "2024-03-02"}}}) == ["a", "b"]
    assert matched(dated, {"range": {published: {"gte": "2024-03-01", "lt": "2024-03-02"}}}) == ["a"]
    # gt reads its bound rounded up too: everything after 2024-03-01's last millisecond
    assert matched(dated, {"range": {published: {"gt": "2024-03-01"}}}) == ["b", "c"]
    assert matched(dated, {"range": {published: {"gt": "2024-03-01 10:00:00"}}}) == ["b", "c"]
    # anchored date math with rounding, in the field's format
    assert matched(dated, {"range": {published: {"gte": "2024-02-01||+1M/M", "lt": "2024-03-01||+1M/M"}}}) == [
        "a", "b", "c"
    ]  # fmt: skip
    # the query's own format and time zone: 01/03/2024 in +11:00 starts at 2024-02-29T13:00Z
    assert matched(dated, {"range": {published: {"gte": "01/03/2024", "lt": "02/03/2024", "format": "dd/MM/yyyy",
                                                 "time_zone": "+11:00"}}}) == ["a"]  # fmt: skip
    assert matched(dated, {"range": {published: {"lte": "29/02/2024", "format": "dd/MM/yyyy"}}}) == ["d"]


def test_a_bound_the_format_cannot_read_is_refused_naming_the_key(dated: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        search(dated, {"query": {"range": {"published": {"gte": "2024-03-01T10:00"}}}})
    message = str(caught.value)
    assert "query.range.published.gte" in message or "query.range.gte" in message
    assert "with format [yyyy-MM-dd HH:mm:ss||yyyy-MM-dd||epoch_millis]" in message
    with pytest.raises(RelevanceInputError, match="Unknown time-zone ID: Mars/Olympus"):
        search(dated, {"query": {"range": {"published": {"gte": "2024-03-01", "time_zone": "Mars/Olympus"}}}})


def test_a_term_on_a_date_matches_from_its_value_to_its_round_up(dated: EmbeddedIndex) -> None:
    # DateFieldType.termQuery is rangeQuery(value, value, true, true): a day matches its whole day
    assert matched(dated, {"term": {"published": "2024-03-01"}}) == ["a"]
    assert matched(dated, {"terms": {"published": ["2024-03-02", 1709596800000]}}) == ["b", "c"]


def test_a_gauss_decay_reads_its_origin_in_the_field_s_format(dated: EmbeddedIndex) -> None:
    decay = {"gauss": {"published": {"origin": "2024-03-02 00:00:00", "scale": "1d", "decay": 0.5}}}
    scored = {"function_score": {"query": {"match": {"title": "news"}}, "functions": [decay], "boost_mode": "replace"}}
    found = dict(search(dated, {"query": scored}))
    day = 86_400_000

    def gauss(distance: float) -> float:
        return math.exp(0.5 * distance**2 / (0.5 * day**2 / math.log(0.5)))  # 0.5 at one scale from the origin

    assert found["b"] == pytest.approx(1.0)
    assert found["a"] == pytest.approx(gauss(14 * 3_600_000), rel=1e-6)
    assert found["c"] == pytest.approx(gauss(3 * day), rel=1e-6)
    assert found["b"] > found["a"] > found["d"] > found["c"]


def test_a_sort_on_the_date_orders_by_the_instant_each_format_read(dated: EmbeddedIndex) -> None:
    body = {"query": {"match_all": {}}, "sort": [{"published": {"order": "desc"}}]}
    assert [doc for doc, _ in search(dated, body)] == ["c", "b", "a", "d", "e"]


def test_a_value_no_format_reads_is_elasticsearch_s_mapper_parsing_refusal() -> None:
    docs = [*DOCS, {"id": "bad", "published": "01/03/2024"}]
    with pytest.raises(RelevanceInputError) as caught:
        EmbeddedEngine().open(docs, MAPPED, "id", "index.yaml")
    message = str(caught.value)
    assert "document 'bad'" in message
    assert "field 'published' is mapped as date" in message
    assert "mapper_parsing_exception" in message
    assert "failed to parse date field [01/03/2024] with format [yyyy-MM-dd HH:mm:ss||yyyy-MM-dd||epoch_millis]" in (
        message
    )


def test_a_bad_mapping_format_is_refused_when_the_index_is_opened() -> None:
    config = {"mappings": {"properties": {"published": {"type": "date", "format": "yyyy-MM-dd||"}}}}
    with pytest.raises(RelevanceInputError, match=r"mappings\.properties\.published\.format: Cannot have empty"):
        EmbeddedEngine().open([{"id": "a"}], config, "id", "index.yaml")


def test_unmapped_strings_are_dynamically_mapped_as_dates_when_a_dynamic_format_reads_them() -> None:
    docs = [
        {"id": "a", "seen": "2024-03-01T10:00:00Z", "code": "2024", "note": "hello", "day": "2024/03/01 +0100"},
        {"id": "b", "seen": "2024-03-03", "code": "2025", "note": "world", "day": "2024/03/02 +0100"},
    ]
    index = EmbeddedEngine().open(docs, {"mappings": {"properties": {"id": {"type": "keyword"}}}}, "id", "x")
    assert index.kinds["seen"] == "date" and index.fields["seen"].params["format"] == "strict_date_optional_time"
    assert index.kinds["day"] == "date"
    assert index.kinds["code"] == "text" and index.kinds["note"] == "text"  # a pure number is never a date
    assert matched(index, {"range": {"seen": {"gte": "2024-03-02"}}}) == ["b"]
    assert matched(index, {"range": {"day": {"lt": "2024/03/01 23:00:00 +0000"}}}) == ["a"]
    # date_detection: false leaves them text; dynamic_date_formats replaces the defaults
    off = EmbeddedEngine().open(docs, {"mappings": {"date_detection": False}}, "id", "x")
    assert off.kinds["seen"] == "text"
    custom = EmbeddedEngine().open(docs, {"mappings": {"dynamic_date_formats": ["yyyy/MM/dd Z"]}}, "id", "x")
    assert custom.kinds["day"] == "date" and custom.kinds["seen"] == "text"


def test_bad_dynamic_date_formats_are_one_error_naming_the_key() -> None:
    with pytest.raises(RelevanceInputError, match=r"mappings\.dynamic_date_formats\[1\]: Invalid format"):
        EmbeddedEngine().open([{"id": "a"}], {"mappings": {"dynamic_date_formats": ["yyyy", "yyyy{"]}}, "id", "x")
    with pytest.raises(RelevanceInputError, match=r"mappings\.dynamic_date_formats: must be a list"):
        EmbeddedEngine().open([{"id": "a"}], {"mappings": {"dynamic_date_formats": [1]}}, "id", "x")


def test_a_date_nanos_field_reads_its_own_default_and_keeps_the_fraction_of_a_millisecond() -> None:
    config = {"mappings": {"properties": {"t": {"type": "date_nanos"}}}}
    docs = [{"id": "a", "t": "2024-03-01T10:11:12.123456789Z"}, {"id": "b", "t": "2024-03-01T10:11:12.123Z"}]
    index = EmbeddedEngine().open(docs, config, "id", "index.yaml")
    assert matched(index, {"range": {"t": {"gt": "2024-03-01T10:11:12.123Z"}}}) == ["a"]
    assert matched(index, {"range": {"t": {"lte": "2024-03-01T10:11:12.123Z"}}}) == ["b"]


def test_a_locale_that_changes_month_names_is_refused_not_read_in_english() -> None:
    def config(locale: str, fmt: str = "dd MMM yyyy") -> dict[str, Any]:
        return {"mappings": {"properties": {"d": {"type": "date", "format": fmt, "locale": locale}}}}

    docs = [{"id": "a", "d": "01 Mar 2024"}]
    with pytest.raises(RelevanceInputError, match=r"mappings\.properties\.d\.locale: .* in 'de'"):
        EmbeddedEngine().open(docs, config("de"), "id", "index.yaml")
    assert EmbeddedEngine().open(docs, config("en-US"), "id", "index.yaml").kinds["d"] == "date"
    numeric = [{"id": "a", "d": "01 03 2024"}]  # without names a locale changes nothing here
    assert EmbeddedEngine().open(numeric, config("de", "dd MM yyyy"), "id", "index.yaml").kinds["d"] == "date"
