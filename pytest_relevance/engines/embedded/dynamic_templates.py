"""`mappings.dynamic_templates` as Elasticsearch 8 reads and applies them (DynamicTemplate, RootObjectMapper).

A template matches a new field by its leaf name (`match`/`unmatch`), its full dotted path (`path_match`/
`path_unmatch`) and the JSON type its first value has (`match_mapping_type`/`unmatch_mapping_type`); patterns are
simple `*` wildcards or, with `match_pattern: regex`, Java regexes matched against the whole name. The first
template that matches wins; its mapping, with `{name}` and `{dynamic_type}` replaced, maps the field. Kept apart
from mapping.py so the matching rules stay readable next to their Elasticsearch counterparts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping as MappingABC
from dataclasses import dataclass
from typing import Any

from pytest_relevance.errors import RelevanceInputError

__all__ = ["DynamicTemplate", "read_dynamic_templates"]

# XContentFieldType, in Elasticsearch's order, with the type a template's mapping gets when it names none
# (`defaultMappingType`: a string is text, a fraction float)
XCONTENT_TYPES = ("object", "string", "long", "double", "boolean", "date", "binary")
_DEFAULT_TYPE = {"string": "text", "double": "float"}
_PATTERN_KEYS = ("match", "path_match", "unmatch", "path_unmatch", "match_mapping_type", "unmatch_mapping_type")


@dataclass(frozen=True, slots=True)
class DynamicTemplate:
    """One named entry of `dynamic_templates`, parsed and checked."""

    name: str
    match: tuple[str, ...]
    path_match: tuple[str, ...]
    unmatch: tuple[str, ...]
    path_unmatch: tuple[str, ...]
    types: frozenset[str]  # the JSON types it matches, after match/unmatch_mapping_type
    regex: bool
    mapping: MappingABC[str, Any]

    def _hit(self, pattern: str, value: str) -> bool:
        if self.regex:  # String.matches: the whole value
            return re.fullmatch(pattern, value) is not None
        return simple_match(pattern, value)

    def matches(self, path: str, leaf: str, xcontent_type: str) -> bool:
        """DynamicTemplate.match: every given pattern list has a hit, no unmatch pattern does, the type is one."""
        if self.path_match and not any(self._hit(p, path) for p in self.path_match):
            return False
        if self.match and not any(self._hit(p, leaf) for p in self.match):
            return False
        if any(self._hit(p, path) for p in self.path_unmatch) or any(self._hit(p, leaf) for p in self.unmatch):
            return False
        return xcontent_type in self.types

    def mapping_for(self, leaf: str, xcontent_type: str) -> dict[str, Any]:
        """mappingForName plus mappingType: `{name}` (the leaf name) and `{dynamic_type}` replaced in keys and
        string values at every depth, and the type the template's dynamic type when it names none."""
        dynamic_type = _DEFAULT_TYPE.get(xcontent_type, xcontent_type)
        spec = _substitute(self.mapping, leaf, dynamic_type)
        spec.setdefault("type", dynamic_type)
        return spec


def simple_match(pattern: str, value: str) -> bool:
    """Elasticsearch's Regex.simpleMatch: `*` stands for any run of characters, everything else for itself."""
    if "*" not in pattern:
        return pattern == value
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), value, re.DOTALL) is not None


def _substitute(value: Any, name: str, dynamic_type: str) -> Any:
    if isinstance(value, MappingABC):
        return {_replace(str(k), name, dynamic_type): _substitute(v, name, dynamic_type) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, name, dynamic_type) for v in value]
    return _replace(value, name, dynamic_type) if isinstance(value, str) else value


def _replace(text: str, name: str, dynamic_type: str) -> str:
    return text.replace("{name}", name).replace("{dynamic_type}", dynamic_type).replace("{dynamicType}", dynamic_type)


def read_dynamic_templates(raw: Any, source: str) -> tuple[DynamicTemplate, ...]:
    """`mappings.dynamic_templates`: a list of one-key objects `{name: {...}}`, each checked as Elasticsearch 8
    checks it at index creation (its messages, with the template's place in the list)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(e, MappingABC) for e in raw):
        raise RelevanceInputError(
            source,
            "mappings.dynamic_templates: Dynamic template syntax error. An array of named objects is expected "
            "([{name: {match: ..., mapping: {...}}}, ...])",
        )
    out = []
    for i, entry in enumerate(raw):
        if len(entry) != 1:
            raise RelevanceInputError(
                source,
                f"mappings.dynamic_templates[{i}]: A dynamic template must be defined with a name (one key, "
                f"holding its match and mapping), not {len(entry)} keys",
            )
        ((name, conf),) = entry.items()
        out.append(_read_one(str(name), conf, f"mappings.dynamic_templates[{i}].{name}", source))
    return tuple(out)


def _read_one(name: str, conf: Any, at: str, source: str) -> DynamicTemplate:
    if not isinstance(conf, MappingABC):
        raise RelevanceInputError(source, f"{at}: a dynamic template must be an object")
    for key in conf:
        if key not in (*_PATTERN_KEYS, "match_pattern", "mapping", "runtime"):
            raise RelevanceInputError(source, f"{at}: Illegal dynamic template parameter: [{key}]")
    if "mapping" in conf and "runtime" in conf:
        raise RelevanceInputError(
            source, f"{at}: mapping and runtime cannot be both specified in the same dynamic template [{name}]"
        )
    if "runtime" in conf:  # a runtime field is computed from _source at search time, which the engine has not
        raise RelevanceInputError(
            source,
            f"{at}.runtime: dynamic template [{name}] maps fields as runtime fields, which the embedded engine does "
            "not have; give the template a `mapping` instead (the elasticsearch engine runs runtime fields)",
        )
    mapping = conf.get("mapping")
    if mapping is None:
        raise RelevanceInputError(source, f"{at}: template [{name}] must have either mapping or runtime set")
    if not isinstance(mapping, MappingABC):
        raise RelevanceInputError(source, f"{at}.mapping: must be an object (a field definition)")
    lists = {key: _patterns(conf, key, at, source) for key in _PATTERN_KEYS}
    match_pattern = str(conf.get("match_pattern", "simple"))
    if match_pattern not in ("simple", "regex", "default"):
        raise RelevanceInputError(source, f"{at}.match_pattern: No matching pattern matched on [{match_pattern}]")
    regex = match_pattern == "regex"
    if regex:
        for key in ("match", "path_match", "unmatch", "path_unmatch"):
            for pattern in lists[key]:
                try:
                    re.compile(pattern)
                except re.error:
                    raise RelevanceInputError(
                        source,
                        f"{at}.{key}: Pattern [{pattern}] of type [regex] is invalid. Cannot create dynamic template "
                        f"[{name}].",
                    ) from None
    for key in ("match_mapping_type", "unmatch_mapping_type"):
        for value in lists[key]:
            if value not in XCONTENT_TYPES and not (key == "match_mapping_type" and lists[key] == ("*",)):
                raise RelevanceInputError(
                    source,
                    f"{at}.{key}: No field type matched on [{value}], possible values are "
                    f"[{', '.join(XCONTENT_TYPES)}]",
                )
    # match, path_match and unmatch_mapping_type imply `match_mapping_type: *`; a template with none of them and
    # no match_mapping_type matches no field at all
    wildcard = lists["match_mapping_type"] == ("*",) or (
        not lists["match_mapping_type"] and any(lists[k] for k in ("match", "path_match", "unmatch_mapping_type"))
    )
    types = set(XCONTENT_TYPES if wildcard else lists["match_mapping_type"]) - set(lists["unmatch_mapping_type"])
    return DynamicTemplate(
        name, lists["match"], lists["path_match"], lists["unmatch"], lists["path_unmatch"],
        frozenset(types), regex, mapping,
    )  # fmt: skip


def _patterns(conf: MappingABC[str, Any], key: str, at: str, source: str) -> tuple[str, ...]:
    """addEntriesToPatternList: a list of strings, or one value taken as its string."""
    value = conf.get(key)
    if value is None:
        return ()
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise RelevanceInputError(
                source, f"{at}.{key}: [{key}] values must either be a string or list of strings, but was {value}"
            )
        return tuple(value)
    return (str(value).lower() if isinstance(value, bool) else str(value),)
