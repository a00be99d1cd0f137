"""Name -> component factories, and the built-in analyzers as compositions of those components.

`english` is a chain (standard tokenizer, possessive, lowercase, stop, porter), not a special case, so a custom
chain and a built-in share every line of code. Every unsupported name is refused here, in one place, with the key
path and the config file, pointing at the elasticsearch engine, or at the plugin a server needs for a plugin's name.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import regex

from pytest_relevance.engines.embedded.analysis import (
    char_filters,
    conditional,
    filters,
    languages,
    snowball,
    stopwords,
    synonyms,
    tokenizers,
)
from pytest_relevance.engines.embedded.analysis.analyzer import Analyzer, chain_stages
from pytest_relevance.engines.embedded.analysis.cjk import CJK_FILTERS, CJK_OPTIONS
from pytest_relevance.engines.embedded.analysis.light_analyzers import (
    LIGHT_ANALYZER_OPTIONS,
    LIGHT_ANALYZERS,
    LIGHT_CHAINS,
)
from pytest_relevance.engines.embedded.analysis.light_stemmers import LIGHT_FILTERS, LIGHT_STEMMERS, STEM_FILTERS
from pytest_relevance.engines.embedded.analysis.stream import MapFilter, StreamFilter
from pytest_relevance.engines.embedded.painless import NotSupported, PainlessError, Program, compile_painless
from pytest_relevance.engines.embedded.plugins import needs_plugin, plugin_of
from pytest_relevance.errors import RelevanceInputError

_KINDS = ("analyzer", "normalizer", "tokenizer", "filter", "char_filter")
#: why a component Elasticsearch has is not here, where the reason is not the usual "not yet"
_WHY_NOT = {
    # ThaiTokenizer's words come from the JDK's dictionary-based BreakIterator: an exact port would be the
    # OpenJDK's GPL code and thai_dict, which this MIT package does not ship
    "thai": " (its words come from the JDK's Thai dictionary break iterator, which has no exact port here)",
}
_ELASTIC = "; the elasticsearch engine supports it"
_NAMED_WORDS = stopwords.NAMED
_NORMALIZING = frozenset(
    [
        "lowercase",
        "uppercase",
        "asciifolding",
        "cjk_width",
        "decimal_digit",
        "elision",
        "trim",
        "pattern_replace",
        "arabic_normalization",
        "german_normalization",
        "hindi_normalization",
        "indic_normalization",
        "persian_normalization",
        "scandinavian_normalization",
        "serbian_normalization",
        "sorani_normalization",
    ]
)
# Names Elasticsearch knows that the embedded engine does not implement: these get "the elasticsearch engine supports
# it"; a plugin's name (`plugins.py`) gets the plugin's; any other name is reported as unknown (most likely a typo).
_ELASTIC_ONLY = {
    "analyzer": frozenset(
        [
            "fingerprint",
            "armenian",
            "basque",
            "catalan",
            "danish",
            "dutch",
            "estonian",
            "finnish",
            "hungarian",
            "irish",
            "lithuanian",
            "norwegian",
            "romanian",
            "russian",
            "swedish",
            "turkish",
            "thai",
        ]
    )
    - frozenset(languages.ANALYZERS),
    "tokenizer": frozenset(["thai"]),
    "char_filter": frozenset(),
    "filter": frozenset(
        [
            "common_grams",
            "delimited_payload",
            "dictionary_decompounder",
            "fingerprint",
            "hunspell",
            "hyphenation_decompounder",
            "keep_types",
            "min_hash",
            "multiplexer",
            "pattern_capture",
            "predicate_token_filter",
        ]
    ),
}


# java.util.regex flags with a `regex` equivalent (CASE_INSENSITIVE without UNICODE_CASE folds ASCII only, as
# `regex` does in ASCII mode).
_JAVA_FLAGS = {
    "CASE_INSENSITIVE": regex.IGNORECASE,
    "MULTILINE": regex.MULTILINE,
    "DOTALL": regex.DOTALL,
    "COMMENTS": regex.VERBOSE,
}
# Lucene's MAX_TOKEN_LENGTH_LIMIT: StandardTokenizer, UAX29URLEmailTokenizer and CharTokenizer refuse a larger
# max_token_length.
_TOKEN_LIMIT = 1024 * 1024
# Index-level limits Elasticsearch checks while building the analysis components, with their defaults.
_INDEX_LIMITS = {"max_ngram_diff": 1, "max_shingle_diff": 3}


# The options each component type reads in Elasticsearch (its factory's settings.get calls). Elasticsearch accepts any
# other key under index.analysis and ignores it without a word (elastic/elasticsearch#16451, #41299), so the index is
# created there and here too; but a misspelt option changes nothing in either engine, so it is a warning naming the key.
_WORDS = ("stopwords", "stopwords_path")
_WD = ("generate_word_parts", "generate_number_parts", "catenate_words", "catenate_numbers", "catenate_all",
       "split_on_case_change", "preserve_original", "split_on_numerics", "stem_english_possessive", "protected_words",
       "protected_words_path", "type_table", "type_table_path")  # fmt: skip
_SYNONYM = ("synonyms", "synonyms_path", "synonyms_set", "expand", "lenient", "format", "updateable")
_OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "analyzer": {
        "custom": ("tokenizer", "filter", "char_filter", "offset_gap"),  # CustomAnalyzerProvider reads offset_gap
        "standard": ("max_token_length", *_WORDS),
        "simple": (),
        "whitespace": (),
        "keyword": (),
        "stop": _WORDS,
        "english": ("stem_exclusion", *_WORDS),
        "snowball": ("language", "name", *_WORDS),
        "pattern": ("pattern", "flags", "lowercase", *_WORDS),
        **dict.fromkeys(languages.ANALYZERS, ("stem_exclusion", *_WORDS)),
    },
    "tokenizer": {
        "standard": ("max_token_length",),
        "whitespace": ("max_token_length",),
        "letter": (),
        "lowercase": (),
        "keyword": ("buffer_size",),
        "classic": ("max_token_length",),
        "uax_url_email": ("max_token_length",),
        "pattern": ("pattern", "flags", "group"),
        "simple_pattern": ("pattern",),
        "simple_pattern_split": ("pattern",),
        "char_group": ("tokenize_on_chars", "max_token_length"),
        "ngram": ("min_gram", "max_gram", "token_chars", "custom_token_chars"),
        "edge_ngram": ("min_gram", "max_gram", "token_chars", "custom_token_chars"),
        "nGram": ("min_gram", "max_gram", "token_chars", "custom_token_chars"),
        "edgeNGram": ("min_gram", "max_gram", "token_chars", "custom_token_chars"),
        "path_hierarchy": ("delimiter", "replacement", "buffer_size", "reverse", "skip"),
        "PathHierarchy": ("delimiter", "replacement", "buffer_size", "reverse", "skip"),
    },
    "normalizer": {"custom": ("filter", "char_filter")},
    "char_filter": {
        "html_strip": ("escaped_tags",),
        "mapping": ("mappings", "mappings_path"),
        "pattern_replace": ("pattern", "replacement", "flags"),
    },
    "filter": {
        "lowercase": ("language",),
        "asciifolding": ("preserve_original",),
        "stop": ("ignore_case", "remove_trailing", *_WORDS),
        "stemmer": ("language", "name"),
        "snowball": ("language", "name"),
        "stemmer_override": ("rules", "rules_path"),
        "keyword_marker": ("keywords", "keywords_path", "keywords_pattern", "ignore_case"),
        "word_delimiter": _WD,
        "word_delimiter_graph": (*_WD, "adjust_offsets", "ignore_keywords"),
        "synonym": _SYNONYM,
        "synonym_graph": _SYNONYM,
        "shingle": (
            "min_shingle_size",
            "max_shingle_size",
            "output_unigrams",
            "output_unigrams_if_no_shingles",
            "token_separator",
            "filler_token",
        ),
        "ngram": ("min_gram", "max_gram", "preserve_original"),
        "edge_ngram": ("min_gram", "max_gram", "preserve_original", "side"),
        "nGram": ("min_gram", "max_gram", "preserve_original"),
        "edgeNGram": ("min_gram", "max_gram", "preserve_original", "side"),
        "unique": ("only_on_same_position",),
        "length": ("min", "max"),
        "limit": ("max_token_count", "consume_all_tokens"),
        "truncate": ("length",),
        "elision": ("articles", "articles_path", "articles_case"),
        "keep": ("keep_words", "keep_words_path", "keep_words_case"),
        "pattern_replace": ("pattern", "replacement", "all", "flags"),
        "condition": ("filter", "script"),
    },
}


def _expand(settings: Mapping | None) -> dict:
    """Settings with dotted keys (`"index.analysis.filter.x.type"`) nested, and the `index` level removed."""
    out: dict = {}

    def put(target: dict, key: str, value: Any) -> None:
        head, _, rest = key.partition(".")
        if rest:
            put(target.setdefault(head, {}), rest, value)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                put(target.setdefault(head, {}), str(k), v)
        else:
            target[head] = value

    for key, value in (settings or {}).items():
        put(out, str(key), value)
    index = out.pop("index", {})
    if isinstance(index, dict):
        for key, value in index.items():
            if key != "analysis":
                out.setdefault(key, value)
    if isinstance(index, dict) and "analysis" in index:
        merged = index["analysis"]
        for kind, defs in out.get("analysis", {}).items():
            merged.setdefault(kind, {}).update(defs)
        out["analysis"] = merged
    return out


class Registry:
    """Analysis components of one index config, built lazily and cached by name."""

    def __init__(self, settings: Mapping | None, source: str, base_dir: Path | None) -> None:
        self.source = source
        self.base_dir = base_dir
        expanded = _expand(settings)
        self.settings = expanded  # every index-level setting, however it was written (nested, dotted, under index)
        analysis = expanded.get("analysis", {})
        if not isinstance(analysis, dict):
            raise RelevanceInputError(source, "settings.analysis: must be an object")
        self.limits = {
            key: self.param(expanded, key, "settings.index", default, int) for key, default in _INDEX_LIMITS.items()
        }
        self.defs: dict[str, dict] = {}
        for kind in _KINDS:
            defs = analysis.get(kind, {})
            if not isinstance(defs, dict):
                raise RelevanceInputError(source, f"settings.analysis.{kind}: must be an object of named definitions")
            self.defs[kind] = defs
        self._analyzers: dict[str, Analyzer] = {}
        self._normalizers: dict[str, Analyzer] = {}
        self._conditions: set[str] = set()  # the condition filters being built, to refuse one that wraps itself
        #: what Elasticsearch accepts but ignores (an option no factory reads), by key path, in the order found
        self.warnings: dict[str, str] = {}

    # errors and parameters ---------------------------------------------------------------------------------------

    def error(self, key_path: str, problem: str) -> RelevanceInputError:
        return RelevanceInputError(self.source, f"{key_path}: {problem}")

    def unsupported(self, key_path: str, what: str) -> RelevanceInputError:
        return self.error(key_path, f"{what} is not supported by the embedded engine{_ELASTIC}")

    def refuse(self, kind: str, name: str, key_path: str) -> RelevanceInputError:
        """The error for a component type the embedded engine lacks: unsupported if Elasticsearch has it, else
        unknown."""
        label = kind.replace("_", " ") if kind != "filter" else "token filter"
        plugin = plugin_of(name)
        if plugin is not None:
            return self.error(key_path, needs_plugin(f"the {label} {name!r}", plugin))
        if name in _ELASTIC_ONLY[kind]:
            return self.unsupported(key_path, f"the {label} {name!r}{_WHY_NOT.get(name, '')}")
        return self.error(key_path, f"unknown {label} {name!r}; check the spelling against Elasticsearch's names")

    def param(self, spec: Mapping, key: str, path: str, default: Any, kind: type) -> Any:
        value = spec.get(key, default)
        if kind is bool:
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            if isinstance(value, bool):
                return value
        elif kind is int:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                return int(value)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif kind is str:
            if isinstance(value, str):
                return value
        elif kind is list:
            if isinstance(value, str):
                return [value]
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
        raise self.error(f"{path}.{key}", f"expected {kind.__name__}, got {value!r}")

    def bounded(self, spec: Mapping, key: str, path: str, default: int, low: int, high: int = 2**31 - 1) -> int:
        """An int option Lucene's constructor range-checks (it throws outside low..high, so Elasticsearch refuses
        the index)."""
        value = self.param(spec, key, path, default, int)
        if not low <= value <= high:
            raise self.error(f"{path}.{key}", f"must be between {low} and {high}, got {value} (Lucene refuses it)")
        return value

    def read_lines(self, spec: Mapping, key: str, path: str) -> list[str]:
        """A `*_path` file: relative to the index config's folder (Elasticsearch's config directory)."""
        name = self.param(spec, key, path, None, str)
        file = Path(name)
        if not file.is_absolute():
            file = (self.base_dir or Path(".")) / file
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise self.error(f"{path}.{key}", f"cannot read {file} ({exc.strerror or exc})") from None
        return text.splitlines()

    def word_list(self, spec: Mapping, key: str, path: str, default: Any, named: bool = False) -> frozenset[str] | None:
        """Words as Elasticsearch reads them; None when absent. Stop words (`named`) follow Analysis.parseWords:
        inline `key` wins over `key_path`, a whole `_none_` is no words, and a named list (`_english_`) is expanded
        wherever it appears, inline or in the file. Other word sets follow Analysis.getWordSet: `key_path` wins, and
        every word is literal."""
        if f"{key}_path" in spec and not (named and key in spec):
            lines = self.read_lines(spec, f"{key}_path", path)
            words = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        else:
            value = spec.get(key, default)
            if value is None:
                return None
            if named and value == "_none_":
                return frozenset()
            if isinstance(value, str):
                words = [v.strip() for v in value.split(",")]
            else:
                words = self.param(spec, key, path, None, list)
        if not named:
            return frozenset(words)
        out: set[str] = set()
        for word in words:
            if word in _NAMED_WORDS:
                out |= _NAMED_WORDS[word]
                continue
            if len(word) > 2 and word.startswith("_") and word.endswith("_"):  # Analysis.resolveNamedWords
                self.warnings[f"{path}.{key}:{word}"] = (
                    f"{path}.{key}: {word!r} is not a stop list Elasticsearch names, so it stops the "
                    f"literal word {word!r} there and here; the lists are {', '.join(sorted(_NAMED_WORDS))}"
                )
            out.add(word)
        return frozenset(out)

    def java_regex(self, spec: Mapping, key: str, path: str, default: str | None = None, flags: bool = False):
        """A Java regular expression as Python `regex` (Java's \\w, \\d, \\s, \\b are ASCII unless flagged).

        With `flags`, the spec's `flags` are read as Elasticsearch's Regex.flagsFromString reads them (names joined
        by `|`, in any case); an unknown name is refused there, and so here."""
        source = spec.get(key, default)
        if not isinstance(source, str):
            raise self.error(f"{path}.{key}", "expected a regular expression")
        names = {n.upper() for n in self.param(spec, "flags", path, "", str).split("|") if n} if flags else set()
        unicode = bool(names & {"UNICODE_CHARACTER_CLASS", "UNICODE_CHAR_CLASS"})
        mode = 0 if unicode else regex.ASCII
        for name in sorted(names):
            if name in _JAVA_FLAGS:
                mode |= _JAVA_FLAGS[name]
            elif name in ("CANON_EQ", "UNIX_LINES") or (
                name == "UNICODE_CASE" and "CASE_INSENSITIVE" in names and not unicode
            ):  # Unicode case folding with ASCII classes has no `regex` equivalent
                raise self.unsupported(f"{path}.flags", f"the regex flag {name}")
            elif name not in ("UNICODE_CHARACTER_CLASS", "UNICODE_CHAR_CLASS", "UNICODE_CASE", "LITERAL"):
                raise self.error(f"{path}.flags", f"unknown regex flag {name!r}, as Elasticsearch refuses it")
        if "LITERAL" in names:
            source = regex.escape(source)
        try:
            return regex.compile(source, mode)
        except regex.error as exc:
            raise self.error(f"{path}.{key}", f"invalid regular expression {source!r} ({exc})") from None

    def check_options(self, kind: str, ctype: str, spec: Mapping, path: str) -> None:
        """Warn of a key the component type does not read (`type` and, for analyzers, position_increment_gap are
        always read); see _OPTIONS for why a warning and not an error."""
        known = _OPTIONS[kind].get(ctype, ())
        extra = ("type", "position_increment_gap") if kind == "analyzer" else ("type",)
        for key in spec:
            if key not in known and key not in extra:
                label = "token filter" if kind == "filter" else kind.replace("_", " ")
                listed = ", ".join(known) or "none"
                self.warnings[f"{path}.{key}"] = (
                    f"{path}.{key}: not an option of the {ctype} {label} (its options: {listed}); "
                    "Elasticsearch accepts it and ignores it, and so does the embedded engine: correct its spelling "
                    "or remove it"
                )

    # lookups -----------------------------------------------------------------------------------------------------

    def check_definitions(self) -> None:
        """Elasticsearch builds every analysis component an index defines when the index is created, used or not:
        a definition it cannot build refuses the index then, so it does here too (built lazily, an unused analyzer
        with a plugin's tokenizer or a misspelled filter type would pass unnoticed)."""
        for name in self.defs["analyzer"]:
            self.analyzer(name, f"settings.analysis.analyzer.{name}")
        for name in self.defs["normalizer"]:
            self.normalizer(name, f"settings.analysis.normalizer.{name}")
        for kind, builders in (("tokenizer", _TOKENIZERS), ("char_filter", _CHAR_FILTERS), ("filter", _FILTERS)):
            for name in self.defs[kind]:
                ctype, spec, path = self._spec(kind, name, f"settings.analysis.{kind}.{name}")
                if ctype == "condition":  # its script compiles when the index is created, used or not
                    self.predicate(spec, path)
                elif ctype not in builders and ctype not in ("synonym", "synonym_graph"):
                    raise self.refuse(kind, ctype, path)
                self.check_options(kind, ctype, spec, path)

    def has_analyzer(self, name: str) -> bool:
        return name in self.defs["analyzer"]

    def analyzer(self, name: str, key_path: str) -> Analyzer:
        if name not in self._analyzers:
            spec = self.defs["analyzer"].get(name)
            if spec is None:
                if name in _ELASTIC_ONLY["analyzer"] or plugin_of(name) is not None:
                    raise self.refuse("analyzer", name, key_path)
                if name not in _BUILTIN_ANALYZERS:
                    known = sorted({*self.defs["analyzer"], *_BUILTIN_ANALYZERS})
                    close = difflib.get_close_matches(name, known, n=1)
                    hint = f"did you mean {close[0]!r}? or " if close else ""
                    raise self.error(
                        key_path, f"unknown analyzer {name!r}; {hint}define it in settings.analysis.analyzer"
                    )
                spec = {"type": name}
            path = f"settings.analysis.analyzer.{name}"
            if not isinstance(spec, dict):
                raise self.error(path, "an analyzer definition must be an object")
            self._analyzers[name] = self._build_analyzer(name, spec, path)
        return self._analyzers[name]

    def updateable_filters(self, name: str) -> list[str]:
        spec = self.defs["analyzer"].get(name)
        names = self.param(spec, "filter", f"settings.analysis.analyzer.{name}", [], list) if spec else []
        defs = {f: self.defs["filter"].get(f) for f in names}
        return [
            f
            for f, d in defs.items()
            if isinstance(d, dict) and self.param(d, "updateable", f"settings.analysis.filter.{f}", False, bool)
        ]

    def normalizer(self, name: str, key_path: str) -> Analyzer:
        if name not in self._normalizers:
            spec = self.defs["normalizer"].get(name)
            if spec is None:
                if name != "lowercase":
                    raise self.error(
                        key_path, f"unknown normalizer {name!r}; define it in settings.analysis.normalizer"
                    )
                spec = {"type": "custom", "filter": ["lowercase"]}
            path = f"settings.analysis.normalizer.{name}"
            kind = spec.get("type", "custom")
            if kind != "custom":
                raise self.error(f"{path}.type", f"a normalizer is of type custom, not {kind!r}")
            if "tokenizer" in spec:  # CustomNormalizerProvider
                raise self.error(
                    f"{path}.tokenizer",
                    f"Custom normalizer [{name}] cannot configure a tokenizer, as Elasticsearch refuses it: a "
                    "normalizer is always the keyword tokenizer, give it filters only",
                )
            self.check_options("normalizer", kind, spec, path)
            filter_names = self.param(spec, "filter", path, [], list)
            for index, fname in enumerate(filter_names):
                ftype = self.defs["filter"].get(fname, {}).get("type", fname)
                if ftype not in _NORMALIZING:
                    raise self.error(f"{path}.filter[{index}]", f"{fname!r} cannot be used in a normalizer")
            self._normalizers[name] = Analyzer(
                name,
                tokenizers.keyword(),
                [self.filter(f, f"{path}.filter[{i}]") for i, f in enumerate(filter_names)],
                [
                    self.char_filter(c, f"{path}.char_filter[{i}]")
                    for i, c in enumerate(self.param(spec, "char_filter", path, [], list))
                ],
            )
        return self._normalizers[name]

    def _build_analyzer(self, name: str, spec: Mapping, path: str) -> Analyzer:
        kind = spec.get("type", "custom" if "tokenizer" in spec else None)
        if isinstance(kind, str) and kind in _OPTIONS["analyzer"]:
            self.check_options("analyzer", kind, spec, path)
        gap = self.param(spec, "position_increment_gap", path, 100, int)
        if kind == "custom":
            self.param(spec, "offset_gap", path, -1, int)  # offsets only: no effect on matching or scores
            if "tokenizer" not in spec:
                raise self.error(f"{path}.tokenizer", "a custom analyzer needs a tokenizer")
            tokenizer = self.tokenizer(self.param(spec, "tokenizer", path, None, str), f"{path}.tokenizer")
            chars = [
                self.char_filter(c, f"{path}.char_filter[{i}]")
                for i, c in enumerate(self.param(spec, "char_filter", path, [], list))
            ]
            chain: list[MapFilter | StreamFilter] = []
            for i, fname in enumerate(self.param(spec, "filter", path, [], list)):
                chain.append(self.filter(fname, f"{path}.filter[{i}]", tokenizer, chars, tuple(chain)))
            return Analyzer(name, tokenizer, chain, chars, gap)
        builder = _BUILTIN_ANALYZERS.get(kind) if isinstance(kind, str) else None
        if builder is None:
            if kind is None:
                raise self.error(f"{path}.type", "an analyzer needs a type (or a tokenizer for a custom one)")
            raise self.refuse("analyzer", kind, f"{path}.type")
        tokenizer, chain = builder(self, spec, path)
        return Analyzer(name, tokenizer, chain, (), gap)

    def _spec(self, kind: str, name: Any, key_path: str) -> tuple[str, dict, str]:
        """(type, definition, key path of the definition) for a component named or defined inline."""
        if isinstance(name, dict):
            spec, path = name, key_path
        elif isinstance(name, str) and name in self.defs[kind]:
            spec, path = self.defs[kind][name], f"settings.analysis.{kind}.{name}"
            if not isinstance(spec, dict):
                raise self.error(path, "a definition must be an object")
        elif isinstance(name, str):
            spec, path = {"type": name}, key_path
        else:
            raise self.error(key_path, f"expected a {kind} name, got {name!r}")
        ctype = spec.get("type")
        if not isinstance(ctype, str):
            raise self.error(f"{path}.type", f"a {kind} definition needs a type")
        return ctype, spec, path

    def tokenizer(self, name: Any, key_path: str) -> Callable:
        if isinstance(name, str) and name not in self.defs["tokenizer"] and name in _PRECONFIGURED_TOKENIZERS:
            return _PRECONFIGURED_TOKENIZERS[name]()
        ctype, spec, path = self._spec("tokenizer", name, key_path)
        builder = _TOKENIZERS.get(ctype)
        if builder is None:
            raise self.refuse("tokenizer", ctype, path)
        self.check_options("tokenizer", ctype, spec, path)
        return builder(self, spec, path)

    def char_filter(self, name: Any, key_path: str) -> Callable:
        ctype, spec, path = self._spec("char_filter", name, key_path)
        builder = _CHAR_FILTERS.get(ctype)
        if builder is None:
            raise self.refuse("char_filter", ctype, path)
        self.check_options("char_filter", ctype, spec, path)
        return builder(self, spec, path)

    def filter(
        self, name: Any, key_path: str, tokenizer: Callable | None = None, chars: list | None = None, before: tuple = ()
    ) -> MapFilter | StreamFilter:
        if isinstance(name, str) and name not in self.defs["filter"] and name in _PRECONFIGURED_FILTERS:
            return _PRECONFIGURED_FILTERS[name]()
        ctype, spec, path = self._spec("filter", name, key_path)
        if ctype in _OPTIONS["filter"] or ctype in _FILTERS:
            self.check_options("filter", ctype, spec, path)
        if ctype in ("synonym", "synonym_graph"):  # rules are analyzed by the chain before the filter
            rules = Analyzer(
                "synonym rules",
                tokenizer or tokenizers.whitespace(),
                [f for f in before if isinstance(f, MapFilter)],
                chars or (),
            )
            return _synonym_filter(self, spec, path, rules, graph=ctype == "synonym_graph")
        if ctype == "condition":
            return self._condition(spec, path, tokenizer, chars, before)
        builder = _FILTERS.get(ctype)
        if builder is None:
            raise self.refuse("filter", ctype, path)
        return builder(self, spec, path)

    def predicate(self, spec: Mapping, path: str) -> Program:
        """A condition filter's script, compiled in Painless's analysis context as ScriptedConditionTokenFilterFactory
        compiles it: inline only, `token` its one variable, a boolean its value; and its `filter` list checked, as
        the factory's constructor checks both when the index is created."""
        name = path.rsplit(".", 1)[-1]
        if not self.param(spec, "filter", path, [], list):
            raise self.error(f"{path}.filter", f"Empty list of filters provided to tokenfilter [{name}]")
        script = spec.get("script")
        if not isinstance(script, dict):
            raise self.error(
                f"{path}.script",
                "needs a script object with the Painless predicate in source, e.g. "
                '{"source": "token.getTerm().length() < 5"} (Elasticsearch reads it as settings, not as a bare string)',
            )
        for key in script:
            if key not in ("source", "id", "lang", "params", "options"):
                raise self.error(f"{path}.script.{key}", "not a key of a script (source, lang, params, options)")
        if "id" in script:
            raise self.error(
                f"{path}.script.id",
                f"Cannot use stored scripts in tokenfilter [{name}] (Elasticsearch's refusal); write the predicate "
                "inline in source",
            )
        lang = script.get("lang", "painless")
        if lang != "painless":
            raise self.error(f"{path}.script.lang", f"the analysis script context runs painless only, not {lang!r}")
        source = script.get("source")
        if not isinstance(source, str):
            raise self.error(f"{path}.script.source", "needs the Painless predicate as a string")
        try:
            return compile_painless(source, {}, context="analysis")
        except NotSupported as exc:
            raise self.error(f"{path}.script.source", f"{_at(exc)}{exc.message}{_ELASTIC}") from None
        except PainlessError as exc:
            raise self.error(f"{path}.script.source", f"Painless compile error {_at(exc)}{exc.message}") from None

    def _condition(
        self, spec: Mapping, path: str, tokenizer: Callable | None, chars: list | None, before: tuple
    ) -> StreamFilter:
        """ScriptedConditionTokenFilterFactory: its `filter` names are resolved as the analyzer's own are, each
        aware of the chain before it (a synonym filter inside reads its rules through them)."""
        name = path.rsplit(".", 1)[-1]
        predicate = self.predicate(spec, path)
        names = self.param(spec, "filter", path, [], list)
        if path in self._conditions:
            raise self.error(f"{path}.filter", f"the condition filter [{name}] wraps itself")
        self._conditions.add(path)
        try:
            chain: list[MapFilter | StreamFilter] = []
            for i, fname in enumerate(names):
                chain.append(self.filter(fname, f"{path}.filter[{i}]", tokenizer, chars, (*before, *chain)))
        finally:
            self._conditions.discard(path)

        def failed(exc: PainlessError, term: str) -> RelevanceInputError:
            return self.error(
                f"{path}.script.source", f"Painless runtime error {_at(exc)}{exc.message} (on the token {term!r})"
            )

        return conditional.condition(predicate, chain, chain_stages, failed)


def _at(exc: PainlessError) -> str:
    return f"at line {exc.where[0]}:{exc.where[1]}: " if exc.where else ""


# tokenizers ------------------------------------------------------------------------------------------------------


def _renamed(name: str) -> Callable[[Registry, Mapping, str], Any]:
    """The camelCase n-gram names, which Elasticsearch refuses in indices created by version 8 or later."""

    def refuse(reg: Registry, spec: Mapping, path: str) -> Any:
        raise reg.error(path, f"Elasticsearch 8 refuses this old name in new indices; use {name!r}")

    return refuse


# Elasticsearch's CharMatcher.Basic classes as `regex` set members: Character.isLetter, isDigit (Nd only: not
# superscripts, which str.isdigit accepts) and isWhitespace (no no-break spaces, which \\s and str.isspace accept).
_CHAR_CLASSES = {
    "letter": r"\p{L}",
    "digit": r"\p{Nd}",
    "whitespace": "".join(regex.escape(c) for c in sorted(tokenizers.java_whitespace)),
    "punctuation": r"\p{P}",
    "symbol": r"\p{S}",
}


def _char_classes(reg: Registry, spec: Mapping, path: str) -> Callable[[str], bool] | None:
    """`token_chars` of the n-gram tokenizers as a predicate (None: every character is a token character)."""
    names = reg.param(spec, "token_chars", path, [], list)
    if not names:
        return None
    parts = []
    for i, name in enumerate(names):
        cls = name.lower().strip()  # NGramTokenizerFactory.parseTokenChars
        if cls == "custom":
            parts.append(regex.escape(reg.param(spec, "custom_token_chars", path, "", str)))
        elif cls in _CHAR_CLASSES:
            parts.append(_CHAR_CLASSES[cls])
        else:
            raise reg.error(f"{path}.token_chars[{i}]", f"unknown character class {name!r}")
    compiled = regex.compile("[" + "".join(parts) + "]")
    return lambda c: compiled.match(c) is not None


def _gram_sizes(reg: Registry, spec: Mapping, path: str, edge: bool) -> tuple[int, int]:
    """min_gram and max_gram, refused where Elasticsearch refuses them: Lucene's n-gram classes need
    1 <= min_gram <= max_gram, and an ngram (not edge_ngram) may span at most index.max_ngram_diff."""
    lo = reg.param(spec, "min_gram", path, 1, int)
    hi = reg.param(spec, "max_gram", path, 2, int)
    limit = reg.limits["max_ngram_diff"]
    if not edge and hi - lo > limit:
        raise reg.error(
            path,
            f"max_gram - min_gram is {hi - lo}, above index.max_ngram_diff ({limit}), as Elasticsearch refuses; "
            "raise index.max_ngram_diff in the index settings to allow it",
        )
    if lo < 1:
        raise reg.error(f"{path}.min_gram", f"must be at least 1, got {lo} (Lucene refuses it)")
    if lo > hi:
        raise reg.error(path, f"min_gram ({lo}) must not be greater than max_gram ({hi}) (Lucene refuses it)")
    return lo, hi


def _ngram_tokenizer(reg: Registry, spec: Mapping, path: str, edge: bool) -> Callable:
    lo, hi = _gram_sizes(reg, spec, path, edge)
    return tokenizers.ngram(lo, hi, _char_classes(reg, spec, path), edges_only=edge)


_CHAR_ESCAPES = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def _char_group(reg: Registry, spec: Mapping, path: str) -> Callable:
    """CharGroupTokenizerFactory: one character, a backslash escape (its parseEscapedChar reads \\\\, \\n, \\t, \\r,
    \\b, \\f and \\uXXXX), or a class name."""
    parts = []
    for i, item in enumerate(reg.param(spec, "tokenize_on_chars", path, [], list)):
        key = f"{path}.tokenize_on_chars[{i}]"
        if len(item) == 1:
            parts.append(regex.escape(item))
        elif item.startswith("\\") and item[1] in _CHAR_ESCAPES:
            parts.append(regex.escape(_CHAR_ESCAPES[item[1]]))
        elif item.startswith("\\u") and len(item) <= 6 and regex.fullmatch(r"[0-9a-fA-F]+", item[2:]):
            parts.append(regex.escape(chr(int(item[2:], 16))))
        elif item in _CHAR_CLASSES:
            parts.append(_CHAR_CLASSES[item])
        else:
            raise reg.error(key, f"expected one character, an escape such as \\n or \\u0041, or a class, got {item!r}")
    compiled = regex.compile("[" + "".join(parts) + "]") if parts else None
    return tokenizers.char_group(
        lambda c: compiled is not None and compiled.match(c) is not None,
        reg.bounded(spec, "max_token_length", path, 255, 1, _TOKEN_LIMIT),
    )


def _keyword_tokenizer(reg: Registry, spec: Mapping, path: str) -> Callable:
    """buffer_size only sizes KeywordTokenizer's first buffer, but Lucene refuses one outside 1..1048576."""
    reg.bounded(spec, "buffer_size", path, 256, 1, _TOKEN_LIMIT)
    return tokenizers.keyword()


def _path_hierarchy(reg: Registry, spec: Mapping, path: str) -> Callable:
    """PathHierarchyTokenizerFactory takes one character for delimiter and replacement, and Lucene refuses a negative
    skip or buffer_size (the buffer's size changes no token)."""
    delimiter = reg.param(spec, "delimiter", path, "/", str)
    replacement = reg.param(spec, "replacement", path, None, str) if "replacement" in spec else None
    for key, value in (("delimiter", delimiter), ("replacement", replacement)):
        if value is not None and len(value) != 1:
            raise reg.error(f"{path}.{key}", f"must be one character, got {value!r} (Elasticsearch refuses it)")
    reg.bounded(spec, "buffer_size", path, 1024, 0)
    skip = reg.bounded(spec, "skip", path, 0, 0)
    return tokenizers.path_hierarchy(delimiter, replacement, skip, reg.param(spec, "reverse", path, False, bool))


_TOKENIZERS: dict[str, Callable[[Registry, Mapping, str], Callable]] = {
    "standard": lambda r, s, p: tokenizers.standard(r.bounded(s, "max_token_length", p, 255, 1, _TOKEN_LIMIT)),
    "whitespace": lambda r, s, p: tokenizers.whitespace(r.bounded(s, "max_token_length", p, 255, 1, _TOKEN_LIMIT)),
    "letter": lambda r, s, p: tokenizers.letter(),
    "lowercase": lambda r, s, p: tokenizers.lowercase(),
    "keyword": _keyword_tokenizer,
    "classic": lambda r, s, p: tokenizers.classic(r.bounded(s, "max_token_length", p, 255, 1)),
    "uax_url_email": lambda r, s, p: tokenizers.uax_url_email(
        r.bounded(s, "max_token_length", p, 255, 1, _TOKEN_LIMIT)
    ),
    "pattern": lambda r, s, p: tokenizers.pattern(
        r.java_regex(s, "pattern", p, default=r"\W+", flags=True), r.param(s, "group", p, -1, int)
    ),
    "simple_pattern": lambda r, s, p: tokenizers.simple_pattern(r.java_regex(s, "pattern", p, default="")),
    "simple_pattern_split": lambda r, s, p: tokenizers.simple_pattern_split(r.java_regex(s, "pattern", p, default="")),
    "char_group": _char_group,
    "ngram": lambda r, s, p: _ngram_tokenizer(r, s, p, edge=False),
    "edge_ngram": lambda r, s, p: _ngram_tokenizer(r, s, p, edge=True),
    "path_hierarchy": _path_hierarchy,
}
_TOKENIZERS["PathHierarchy"] = _TOKENIZERS["path_hierarchy"]
_TOKENIZERS["nGram"] = _renamed("ngram")
_TOKENIZERS["edgeNGram"] = _renamed("edge_ngram")

# Names used without a definition are Elasticsearch's pre-configured components; where one differs from a definition
# with no options (CommonAnalysisPlugin: EdgeNGramTokenizer's defaults are 1 and 1, not the factory's 1 and 2), it is
# built here.
_PRECONFIGURED_TOKENIZERS: dict[str, Callable[[], Callable]] = {
    "edge_ngram": lambda: tokenizers.ngram(1, 1, None, edges_only=True),
}

# char filters ----------------------------------------------------------------------------------------------------


def _mapping(reg: Registry, spec: Mapping, path: str) -> Callable:
    if "mappings_path" in spec:
        lines, key = reg.read_lines(spec, "mappings_path", path), "mappings_path"
    else:
        lines, key = reg.param(spec, "mappings", path, None, list), "mappings"
    rules = {}
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            source, target = char_filters.parse_mapping_rule(line)
        except ValueError as exc:
            raise reg.error(f"{path}.{key}[{i}]", f"{exc}: {line!r}") from None
        rules[source] = target
    return char_filters.mapping(rules)


def _pattern_replace_char(reg: Registry, spec: Mapping, path: str) -> Callable:
    compiled = reg.java_regex(spec, "pattern", path, flags=True)
    return char_filters.pattern_replace(compiled, _java_replacement(reg, spec, path, compiled))


def _java_replacement(reg: Registry, spec: Mapping, path: str, compiled: regex.Pattern) -> str:
    """The `replacement` as Java's Matcher.appendReplacement reads it, in Python's template syntax: `\\` escapes the
    next character, `$n` takes the most digits that still name a group, `${name}` a named group; what Java refuses
    (a dangling `\\` or `$`, an unknown group) is refused here, before any text is analyzed."""
    replacement = reg.param(spec, "replacement", path, "", str)
    out: list[str] = []
    i = 0

    def bad(problem: str) -> RelevanceInputError:
        return reg.error(f"{path}.replacement", f"{problem} in {replacement!r} (Java refuses it)")

    while i < len(replacement):
        char = replacement[i]
        if char == "\\":
            if i + 1 == len(replacement):
                raise bad("a trailing \\ escapes nothing")
            out.append(replacement[i + 1].replace("\\", "\\\\"))
            i += 2
        elif char == "$":
            if replacement[i + 1 : i + 2] == "{":
                end = replacement.find("}", i + 2)
                name = replacement[i + 2 : end] if end > 0 else ""
                if not name.isascii() or not name.isalnum() or name[0].isdigit() or name not in compiled.groupindex:
                    raise bad(f"${{{name}}} names no group of the pattern")
                out.append(f"\\g<{name}>")
                i = end + 1
            else:
                digits = replacement[i + 1 : i + 2]
                if not (digits.isascii() and digits.isdigit()) or int(digits) > compiled.groups:
                    raise bad(f"${digits} refers to no group of the pattern")
                i += 2
                while i < len(replacement) and replacement[i] in "0123456789":
                    if int(digits + replacement[i]) > compiled.groups:
                        break
                    digits += replacement[i]
                    i += 1
                out.append(f"\\g<{int(digits)}>")
        else:
            out.append(char)
            i += 1
    return "".join(out)


_CHAR_FILTERS: dict[str, Callable[[Registry, Mapping, str], Callable]] = {
    "html_strip": lambda r, s, p: char_filters.html_strip(frozenset(r.param(s, "escaped_tags", p, [], list))),
    "mapping": _mapping,
    "pattern_replace": _pattern_replace_char,
}

# token filters ---------------------------------------------------------------------------------------------------


def _stemmer(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    key = "name" if "name" in spec and "language" not in spec else "language"
    language = reg.param(spec, key, path, "porter", str)
    # StemmerTokenFilterFactory compares names ignoring case and also knows the camelCase spellings
    by_language = {
        "english": filters.porter, "porter": filters.porter, "porter2": filters.snowball_english,
        "minimal_english": filters.minimal_english, "minimalenglish": filters.minimal_english,
        "light_english": filters.kstem, "lightenglish": filters.kstem, "kstem": filters.kstem,
        "possessive_english": filters.possessive_english, "possessiveenglish": filters.possessive_english,
    }  # fmt: skip
    by_language.update(LIGHT_STEMMERS)
    if language.lower() in by_language:
        return by_language[language.lower()]()
    name = languages.snowball_stemmer(language)
    if name is None:
        raise reg.unsupported(f"{path}.{key}", f"the {language!r} stemmer")
    return filters.snowball(name)


def _snowball(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    key = "name" if "name" in spec and "language" not in spec else "language"
    language = reg.param(spec, key, path, "English", str)
    name = languages.snowball_language(language)  # Elasticsearch capitalizes the first letter, then looks it up
    if name is None:
        raise reg.error(
            f"{path}.{key}",
            f"Lucene has no Snowball stemmer {language[:1].upper() + language[1:]!r}; "
            f"the languages are {', '.join(sorted(snowball.LANGUAGES))} (the first letter may be lowercase)",
        )
    return filters.snowball(name)


def _stop(reg: Registry, spec: Mapping, path: str) -> MapFilter | StreamFilter:
    words = reg.word_list(spec, "stopwords", path, "_english_", named=True) or frozenset()
    ignore_case = reg.param(spec, "ignore_case", path, False, bool)
    if not reg.param(spec, "remove_trailing", path, True, bool):
        return filters.suggest_stop(words, ignore_case)
    return filters.stop(words, ignore_case)


def _keep(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    words = reg.word_list(spec, "keep_words", path, None)
    if words is None:
        raise reg.error(path, "keep needs keep_words or keep_words_path")
    return filters.keep(words, reg.param(spec, "keep_words_case", path, False, bool))


def _keyword_marker(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    ignore_case = reg.param(spec, "ignore_case", path, False, bool)
    if "keywords_pattern" in spec:
        if "keywords" in spec or "keywords_path" in spec:
            raise reg.error(path, "keywords_pattern cannot be combined with keywords or keywords_path (Elasticsearch)")
        compiled = reg.java_regex(spec, "keywords_pattern", path)
        return filters.keyword_marker(lambda term: compiled.fullmatch(term) is not None)
    words = reg.word_list(spec, "keywords", path, None)
    if words is None:
        raise reg.error(path, "keyword_marker needs keywords, keywords_path or keywords_pattern")
    if ignore_case:
        folded = frozenset(filters.java_lower(w) for w in words)
        return filters.keyword_marker(lambda term: filters.java_lower(term) in folded)
    return filters.keyword_marker(words.__contains__)


def _stemmer_override(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    key = "rules_path" if "rules_path" in spec else "rules"
    lines = reg.read_lines(spec, key, path) if key == "rules_path" else reg.param(spec, key, path, None, list)
    rules: dict[str, str] = {}
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        sources, arrow, target = line.partition("=>")
        if not arrow or not target.strip() or not sources.strip():
            raise reg.error(f"{path}.{key}[{i}]", f"expected 'word, word => stem', got {line!r}")
        for source in sources.split(","):
            rules.setdefault(source.strip(), target.strip())
    return filters.stemmer_override(rules)


def _elision(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    words = reg.word_list(spec, "articles", path, None)
    if words is None:
        raise reg.error(path, "an elision filter needs articles or articles_path, as Elasticsearch requires")
    return filters.elision(words, reg.param(spec, "articles_case", path, False, bool))


def _pattern_replace(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    compiled = reg.java_regex(spec, "pattern", path, flags=True)
    return filters.pattern_replace(
        compiled, _java_replacement(reg, spec, path, compiled), reg.param(spec, "all", path, True, bool)
    )


def _ngram_filter(reg: Registry, spec: Mapping, path: str, edge: bool) -> StreamFilter:
    lo, hi = _gram_sizes(reg, spec, path, edge)
    side = reg.param(spec, "side", path, "front", str) if edge else "front"
    if side not in ("front", "back"):  # EdgeNGramTokenFilterFactory.parseSide
        raise RelevanceInputError(reg.source, f"{path}.side: invalid side: {side}")
    keep = reg.param(spec, "preserve_original", path, False, bool)
    return filters.ngram(lo, hi, keep, edges_only=edge, back=side == "back")


def _shingle(reg: Registry, spec: Mapping, path: str) -> StreamFilter:
    lo = reg.param(spec, "min_shingle_size", path, 2, int)
    hi = reg.param(spec, "max_shingle_size", path, 2, int)
    unigrams = reg.param(spec, "output_unigrams", path, True, bool)
    limit = reg.limits["max_shingle_diff"]
    if hi - lo + unigrams > limit:  # Elasticsearch counts the unigrams as one more size
        raise reg.error(
            path,
            f"max_shingle_size - min_shingle_size (+1 with output_unigrams) is {hi - lo + unigrams}, above "
            f"index.max_shingle_diff ({limit}), as Elasticsearch refuses; raise index.max_shingle_diff to allow it",
        )
    if lo < 2 or hi < lo:
        raise reg.error(path, f"shingle sizes must satisfy 2 <= min_shingle_size <= max_shingle_size, got {lo}, {hi}")
    made = filters.shingle(
        lo,
        hi,
        unigrams,
        reg.param(spec, "output_unigrams_if_no_shingles", path, False, bool),
        reg.param(spec, "token_separator", path, " ", str),
        reg.param(spec, "filler_token", path, "_", str),
    )
    made.disables_graph = unigrams or lo != hi  # shingles of several sizes are not aligned paths (Elasticsearch)
    return made


def _word_delimiter(reg: Registry, spec: Mapping, path: str, graph: bool) -> StreamFilter:
    flags = {
        name: reg.param(spec, name, path, default, bool)
        for name, default in (
            ("generate_word_parts", True), ("generate_number_parts", True), ("catenate_words", False),
            ("catenate_numbers", False), ("catenate_all", False), ("split_on_case_change", True),
            ("preserve_original", False), ("split_on_numerics", True), ("stem_english_possessive", True),
            ("adjust_offsets", True), ("ignore_keywords", False),
        )
        # word_delimiter (not graph) has neither adjust_offsets nor ignore_keywords: the defaults always apply
        if graph or name not in ("adjust_offsets", "ignore_keywords")
    }  # fmt: skip
    flags.setdefault("adjust_offsets", True)
    flags.setdefault("ignore_keywords", False)
    protected = reg.word_list(spec, "protected_words", path, None) or frozenset()
    return filters.word_delimiter(flags, protected, graph=graph, type_table=_type_table(reg, spec, path))


def _type_table(reg: Registry, spec: Mapping, path: str) -> dict[str, int]:
    """A word delimiter's `type_table` (inline rules) or `type_table_path` (a file; `#` lines are comments)."""
    if "type_table_path" in spec:
        key = "type_table_path"
        rules = [line.strip() for line in reg.read_lines(spec, key, path) if line.strip() and line[0] != "#"]
    else:
        key = "type_table"
        rules = reg.param(spec, key, path, [], list)
    table = {}
    for i, rule in enumerate(rules):
        try:
            char, kind = filters.parse_wd_type_rule(str(rule))
        except ValueError as exc:
            raise reg.error(f"{path}.{key}[{i}]", f"{exc}: {rule!r}") from None
        table[char] = kind
    return table


def _synonym_filter(reg: Registry, spec: Mapping, path: str, rules_analyzer: Analyzer, graph: bool) -> StreamFilter:
    if "synonyms_set" in spec:  # the plugin reads relevance_synonyms_sets and rewrites it to a synonyms_path
        raise reg.error(
            f"{path}.synonyms_set",
            f"the synonyms set {spec['synonyms_set']!r} lives on the server (the Synonyms API); for the embedded "
            'engine map it to a local file of rules with relevance_synonyms_sets = "id=path"',
        )
    if reg.param(spec, "format", path, "solr", str) != "solr":
        raise reg.unsupported(f"{path}.format", "the wordnet synonym format")
    if "synonyms_path" in spec:
        lines, key = reg.read_lines(spec, "synonyms_path", path), "synonyms_path"
    elif "synonyms" in spec:
        lines, key = reg.param(spec, "synonyms", path, None, list), "synonyms"
    else:
        raise reg.error(path, "a synonym filter needs synonyms or synonyms_path")
    try:
        table = synonyms.parse_solr(
            lines,
            rules_analyzer,
            expand=reg.param(spec, "expand", path, True, bool),
            lenient=reg.param(spec, "lenient", path, False, bool),
        )
    except synonyms.RuleError as exc:
        raise reg.error(f"{path}.{key}[{exc.index}]", str(exc)) from None
    return synonyms.synonym_graph(table) if graph else synonyms.synonym_flat(table)


def _length(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    low = reg.bounded(spec, "min", path, 0, 0)
    return filters.length(low, reg.bounded(spec, "max", path, 2**31 - 1, low))


def _truncate(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    length = reg.param(spec, "length", path, -1, int)
    if length <= 0:
        raise reg.error(f"{path}.length", "a truncate filter needs a length above 0, as Elasticsearch requires")
    return filters.truncate(length)


def _named(factory: Callable[[], MapFilter | StreamFilter]) -> Callable[[Registry, Mapping, str], Any]:
    return lambda reg, spec, path: factory()


def _lowercase(reg: Registry, spec: Mapping, path: str) -> MapFilter:
    if "language" not in spec:
        return filters.lowercase()
    language = reg.param(spec, "language", path, None, str)
    if language.lower() not in languages.LOWERCASE:
        raise reg.error(
            f"{path}.language",
            f"Elasticsearch has no {language!r} lowercase filter; the languages are greek, irish and turkish",
        )
    return languages.LOWERCASE[language.lower()]()


_FILTERS: dict[str, Callable[[Registry, Mapping, str], Any]] = {
    "lowercase": _lowercase,
    "uppercase": _named(filters.uppercase),
    "asciifolding": lambda r, s, p: filters.asciifolding(r.param(s, "preserve_original", p, False, bool)),
    "stop": _stop,
    "stemmer": _stemmer,
    "porter_stem": _named(filters.porter),
    "kstem": _named(filters.kstem),
    "snowball": _snowball,
    "stemmer_override": _stemmer_override,
    "keyword_marker": _keyword_marker,
    "flatten_graph": _named(synonyms.flatten_graph),
    "word_delimiter": lambda r, s, p: _word_delimiter(r, s, p, graph=False),
    "word_delimiter_graph": lambda r, s, p: _word_delimiter(r, s, p, graph=True),
    "shingle": _shingle,
    "ngram": lambda r, s, p: _ngram_filter(r, s, p, edge=False),
    "edge_ngram": lambda r, s, p: _ngram_filter(r, s, p, edge=True),
    "reverse": _named(filters.reverse),
    "unique": lambda r, s, p: filters.unique(r.param(s, "only_on_same_position", p, False, bool)),
    "remove_duplicates": _named(filters.remove_duplicates),
    "keyword_repeat": _named(filters.keyword_repeat),
    "length": _length,
    "limit": lambda r, s, p: filters.limit(r.bounded(s, "max_token_count", p, 1, 1)),
    "truncate": _truncate,
    "trim": _named(filters.trim),
    "elision": _elision,
    "keep": _keep,
    "cjk_width": _named(filters.cjk_width),
    "decimal_digit": _named(filters.decimal_digit),
    "pattern_replace": _pattern_replace,
    "apostrophe": _named(filters.apostrophe),
    "classic": _named(filters.classic),
}
_FILTERS.update({name: _named(factory) for name, factory in LIGHT_FILTERS.items()})
_FILTERS.update(CJK_FILTERS, **STEM_FILTERS)
_OPTIONS["filter"].update(CJK_OPTIONS, **dict.fromkeys(STEM_FILTERS, ("stem_exclusion",)))
_FILTERS["nGram"] = _renamed("ngram")
_FILTERS["edgeNGram"] = _renamed("edge_ngram")

# Pre-configured token filters that differ from a definition without options: a defined truncate needs length and a
# defined elision needs articles (both refused without), the pre-configured ones use 10 and the French articles;
# the pre-configured edge_ngram makes 1-grams only (EdgeNGramTokenFilter(input, 1)).
_PRECONFIGURED_FILTERS: dict[str, Callable[[], MapFilter | StreamFilter]] = {
    "type_as_payload": filters.type_as_payload,
    "truncate": lambda: filters.truncate(10),
    "elision": lambda: filters.elision(filters.FRENCH_ARTICLES, ignore_case=True),
    "edge_ngram": lambda: filters.ngram(1, 1, False, edges_only=True),
}

# built-in analyzers ----------------------------------------------------------------------------------------------


def _standard(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
    words = reg.word_list(spec, "stopwords", path, "_none_", named=True) or frozenset()
    chain: list = [filters.lowercase()]
    if words:
        chain.append(filters.stop(words))
    return tokenizers.standard(reg.bounded(spec, "max_token_length", path, 255, 1, _TOKEN_LIMIT)), chain


def _english(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
    words = reg.word_list(spec, "stopwords", path, "_english_", named=True) or frozenset()
    chain: list = [filters.possessive_english(), filters.lowercase(), filters.stop(words)]
    exclusions = reg.word_list(spec, "stem_exclusion", path, None)
    if exclusions:
        chain.append(filters.keyword_marker(exclusions.__contains__))
    chain.append(filters.porter())
    return tokenizers.standard(), chain


def _stop_analyzer(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
    words = reg.word_list(spec, "stopwords", path, "_english_", named=True) or frozenset()
    return tokenizers.lowercase(), [filters.stop(words)]


# SnowballAnalyzerProvider.DEFAULT_LANGUAGE_STOP_WORDS: the languages with default stop words (others have none).
_SNOWBALL_STOP_WORDS = {
    "English": "_english_", "Dutch": "_dutch_", "German": "_german_", "German2": "_german_", "French": "_french_"
}  # fmt: skip


def _snowball_analyzer(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
    """Elasticsearch's SnowballAnalyzer: `language` is the Snowball class name exactly as given (no capitalizing)."""
    key = "name" if "name" in spec and "language" not in spec else "language"
    language = reg.param(spec, key, path, "English", str)
    if language not in snowball.LANGUAGES:
        raise reg.error(
            f"{path}.{key}",
            f"Lucene has no Snowball stemmer {language!r} (the snowball analyzer takes the name exactly); "
            f"the languages are {', '.join(sorted(snowball.LANGUAGES))}",
        )
    default = _SNOWBALL_STOP_WORDS.get(language, "_none_")
    words = reg.word_list(spec, "stopwords", path, default, named=True) or frozenset()
    chain: list = []
    if language in ("English", "Porter", "Lovins"):  # the possessive goes before lowercasing, for English stemmers
        chain.append(filters.possessive_english())
    chain.append(languages.turkish_lowercase() if language == "Turkish" else filters.lowercase())
    chain += [filters.stop(words), filters.snowball(language)]
    return tokenizers.standard(), chain


def _language_analyzer(chain: languages.Chain) -> Callable[[Registry, Mapping, str], tuple[Callable, list]]:
    """A built-in language analyzer (languages.ANALYZERS) with its provider's `stopwords` and `stem_exclusion`."""

    def build(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
        words = reg.word_list(spec, "stopwords", path, chain.stop_words, named=True) or frozenset()
        out: list = [factory() for factory in chain.before]
        out.append(filters.stop(words))
        if spec.get("stem_exclusion") != "_none_":  # Analysis.parseStemExclusion: `_none_` is no words
            exclusions = reg.word_list(spec, "stem_exclusion", path, None)
            if exclusions:
                out.append(filters.keyword_marker(exclusions.__contains__))
        out += [factory() for factory in chain.stem]
        return tokenizers.standard(), out

    return build


def _pattern_analyzer(reg: Registry, spec: Mapping, path: str) -> tuple[Callable, list]:
    compiled = reg.java_regex(spec, "pattern", path, default=r"\W+", flags=True)
    chain: list = [filters.lowercase()] if reg.param(spec, "lowercase", path, True, bool) else []
    words = reg.word_list(spec, "stopwords", path, "_none_", named=True) or frozenset()
    if words:
        chain.append(filters.stop(words))
    return tokenizers.pattern(compiled), chain


_BUILTIN_ANALYZERS: dict[str, Callable[[Registry, Mapping, str], tuple[Callable, list]]] = {
    "standard": _standard,
    "simple": lambda r, s, p: (tokenizers.lowercase(), []),
    "whitespace": lambda r, s, p: (tokenizers.whitespace(255), []),  # WhitespaceAnalyzerProvider reads no option
    "keyword": lambda r, s, p: (tokenizers.keyword(), []),
    "stop": _stop_analyzer,
    "english": _english,
    "snowball": _snowball_analyzer,
    "pattern": _pattern_analyzer,
    **{name: _language_analyzer(chain) for name, chain in languages.ANALYZERS.items()},
}
_BUILTIN_ANALYZERS.update({name: _language_analyzer(chain) for name, chain in LIGHT_CHAINS.items()})
_BUILTIN_ANALYZERS.update(LIGHT_ANALYZERS)
_OPTIONS["analyzer"].update(dict.fromkeys(LIGHT_CHAINS, ("stem_exclusion", *_WORDS)), **LIGHT_ANALYZER_OPTIONS)
