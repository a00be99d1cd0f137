"""Which code points Lucene 9.9's StandardTokenizer makes an <EMOJI> token of, shared by the tokenizer and its batch
form (`bulk.py`)."""

from __future__ import annotations

# Lucene's emoji: the code points StandardTokenizerImpl's JFlex tables (Lucene 9.9) make an <EMOJI> token of,
# tests/lucene_extra/standard_emoji.txt as tests/lucene_extra/standard_emoji.py found them with real Lucene. Its
# Extended_Pictographic is an older Unicode's, broader than today's (U+266A, U+2661, whole reserved blocks); flags
# are pairs of regional indicators, not in it. An emoji takes a skin tone, then either one presentation selector or
# any other extending characters (a joiner...), and joiners chain emoji into one token.
PICTOGRAPHS = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9-\u21aa\u231a-\u231b\u2328\u2388\u23cf"
    "\u23e9-\u23f3\u23f8-\u23fa\u24c2\u25aa-\u25ab\u25b6\u25c0\u25fb-\u25fe\u2600-\u2605\u2607-\u2612"
    "\u2614-\u2685\u2690-\u2705\u2708-\u2712\u2714\u2716\u271d\u2721\u2728\u2733-\u2734\u2744\u2747"
    "\u274c\u274e\u2753-\u2755\u2757\u2763-\u2767\u2795-\u2797\u27a1\u27b0\u27bf\u2934-\u2935"
    "\u2b05-\u2b07\u2b1b-\u2b1c\u2b50\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001f0ff"
    "\U0001f10d-\U0001f10f\U0001f12f\U0001f16c-\U0001f171\U0001f17e-\U0001f17f\U0001f18e"
    "\U0001f191-\U0001f19a\U0001f1ad-\U0001f1e5\U0001f201-\U0001f20f\U0001f21a\U0001f22f"
    "\U0001f232-\U0001f23a\U0001f23c-\U0001f23f\U0001f249-\U0001f53d\U0001f546-\U0001f64f"
    "\U0001f680-\U0001f6ff\U0001f774-\U0001f77f\U0001f7d5-\U0001f7ff\U0001f80c-\U0001f80f"
    "\U0001f848-\U0001f84f\U0001f85a-\U0001f85f\U0001f888-\U0001f88f\U0001f8ae-\U0001f8ff"
    "\U0001f90c-\U0001f93a\U0001f93c-\U0001f945\U0001f947-\U0001fffd"
)  # a regular expression class's contents (ranges)
