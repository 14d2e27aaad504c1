#!/usr/bin/python3
"""Writes tests/data/pre_tokenizer_golden.json: the words that the splitting regexes
of each tokenizer.ggml.pre family give, computed with Python's `regex` module (Debian
python3-regex) from the regexes themselves, as an outside truth for
tests/engine/test_pre_tokenizer.cpp. Each family's regex list is applied in turn,
every match and the text between matches becoming a piece (Hugging Face's
"Isolated" split), as llama.cpp's unicode_regex_split does.

The regexes are those of llama.cpp's llama-vocab.cpp; for gpt-4o and tekken the
original Hugging Face regexes (\\p{Lu}.. classes), which kvchat implements.
Run: /usr/bin/python3 scripts/gen_pre_tokenizer_golden.py
"""
import json
import os
import random

import regex

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "pre_tokenizer_golden.json")

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
          r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN2 = LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")
SEED_CODER = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}|"""
              r""" ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+""")
CJK_HANGUL = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"

DEEPSEEK_LLM_LETTERS = [
    (0x41, 0x5A), (0x61, 0x7A), (0xB5, 0xB5), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x1BA),
    (0x1BC, 0x1BF), (0x1C4, 0x293), (0x295, 0x2AF), (0x370, 0x373), (0x376, 0x377),
    (0x37B, 0x37D), (0x37F, 0x37F), (0x386, 0x386), (0x388, 0x38A), (0x38C, 0x38C),
    (0x38E, 0x3A1), (0x3A3, 0x3F5), (0x3F7, 0x481), (0x48A, 0x52F), (0x531, 0x556),
    (0x10A0, 0x10C5), (0x13A0, 0x13F5), (0x13F8, 0x13FD), (0x1C90, 0x1CBA),
    (0x1CBD, 0x1CBF), (0x1D00, 0x1D2B), (0x1D6B, 0x1D77), (0x1D79, 0x1D9A),
    (0x1E00, 0x1F15), (0x1F18, 0x1F1D), (0x1F20, 0x1F45), (0x1F48, 0x1F4D),
    (0x1F50, 0x1F57), (0x1F59, 0x1F59), (0x1F5B, 0x1F5B), (0x1F5D, 0x1F5D),
    (0x1F5F, 0x1F7D), (0x1F80, 0x1FB4), (0x1FB6, 0x1FBC), (0x1FBE, 0x1FBE),
    (0x1FC2, 0x1FC4), (0x1FC6, 0x1FCC), (0x1FD0, 0x1FD3), (0x1FD6, 0x1FDB),
    (0x1FE0, 0x1FEC), (0x1FF2, 0x1FF4), (0x1FF6, 0x1FFC), (0x2102, 0x2102),
    (0x2107, 0x2107), (0x210A, 0x2113), (0x2115, 0x2115), (0x2119, 0x211D),
    (0x2124, 0x2124), (0x2126, 0x2126), (0x2128, 0x2128), (0x212A, 0x212D),
    (0x212F, 0x2134), (0x2139, 0x2139), (0x213C, 0x213F), (0x2145, 0x2149),
    (0x214E, 0x214E), (0x2183, 0x2184), (0x2C00, 0x2C7B), (0x2C7E, 0x2CE4),
    (0x2CEB, 0x2CEE), (0x2CF2, 0x2CF3), (0xA640, 0xA66D), (0xA680, 0xA69B),
    (0xA722, 0xA76F), (0xA771, 0xA787), (0xA78B, 0xA78E), (0xAB70, 0xABBF),
    (0xFB00, 0xFB06), (0xFB13, 0xFB17), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A),
    (0x10400, 0x1044F), (0x104B0, 0x104D3), (0x104D8, 0x104FB), (0x10C80, 0x10CB2),
    (0x10CC0, 0x10CF2), (0x118A0, 0x118DF), (0x1E900, 0x1E943),
]


def char_class(ranges):
    return "[" + "".join(regex.escape(chr(a)) + "-" + regex.escape(chr(b)) for a, b in ranges) + "]"


FAMILIES = {
    "gpt-2": [GPT2],
    "llama-bpe": [LLAMA3],
    "qwen2": [QWEN2],
    "seed-coder": [SEED_CODER],
    "starcoder": [r"\p{N}", GPT2],
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", r"[0-9][0-9][0-9]"],
    "falcon": [r"[\p{P}\$\+<=>\^~\|`]+", GPT2, r"[0-9][0-9][0-9]"],
    "deepseek-llm": [
        r"[\r\n]",
        r"\s?" + char_class(DEEPSEEK_LLM_LETTERS) + "+",
        "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
        r"\s+$",
        CJK_HANGUL,
        r"\p{N}+",
    ],
    "deepseek-coder": [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", CJK_HANGUL, r"\p{N}"],
    "deepseek-v3": [
        r"\p{N}{1,3}",
        "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
        r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|"""
        r""" ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ],
    "bloom": ["\\ ?[^(\\s|.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c)]+"],
    "viking": ["\\ ?[^(\\s|.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c)]+", r"\p{N}"],
    "gpt-4o": [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
        r"""\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ],
    "tekken": [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"""
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|"""
        r"""\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ],
}

# Characters that exercise every rule. (No U+001C..U+001F, U+017F or U+212A: Python's
# \s and case folding differ there from Oniguruma's and llama.cpp's.)
ALPHABET = [
    " ", "  ", "\n", "\r", "\t", "a", "b", "Z", "Q", "s", "S", "t", "T", "r", "e", "v", "l",
    "d", "m", "'", "1", "7", "0", "!", ".", ",", "/", "(", ")", "|", "$", "+", "<", "~", "`",
    "_", "-", "\"", "\u00e9", "\u00c9", "\u0301", "\u01c5", "\u02b0", "\u3000", "\u00a0",
    "\u2003", "\u4f60", "\u3042", "\u30a2", "\uac00", "\u2026", "\u3002", "\uff0c", "\u0663",
    "\u00bd", "\U0001f999", "\u200d", "\u0964", "\u05d0", "\u0410", "\u044f", "\u1f7d",
    "\u03a9", "\u2126", "\uff5e", "\u00b5", "\u0e01", "\u0e48",
]

FIXED = [
    "Hello world", " Hello World!", "I'm here, you're there; they'll've gone 'S 'Ll",
    "3 33 333 3333 33333 333333", "3.14 1,000,000 $5", "\n \n\n \n\n\n \t \t\t \t\n  \n   \n",
    "   Hello\n    Hello", "\U0001f680 (normal) \U0001f636\u200d\U0001f32b\ufe0f \u2705",
    "\u6211\u60f3\u5728apple\u5de5\u4f5c1314151\u5929\uff5e", "C\u1eeda Vi\u1ec7t",
    "\u043d\u0435\u0449\u043e \u043d\u0430 \u0411\u044a\u043b\u0433\u0430\u0440\u0441\u043a\u0438",
    "HelloWorld ABCdef don'T NASA", "x+=1234 .Net", "end.\n\nNext", "caf\u0065\u0301 na\u00efve",
    "\u1780\u17b6\u1793\u17cb\u178f\u17c2", "''''''```````\"\"\"\"......!!!!!!??????",
    "a  b   c    ", "\t\tx", "//comment\n/*x*/",
]


def split(regexes, text):
    pieces = [text]
    for rx in regexes:
        pat = regex.compile(rx)
        out = []
        for p in pieces:
            pos = 0
            for m in pat.finditer(p):
                if m.end() == m.start():
                    continue
                if m.start() > pos:
                    out.append(p[pos:m.start()])
                out.append(m.group())
                pos = m.end()
            if pos < len(p):
                out.append(p[pos:])
        pieces = out
    return pieces


def main():
    rng = random.Random(20261130)
    texts = list(FIXED)
    for _ in range(200):
        texts.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 24))))
    # {"name": [[text, [word, ...]], ...], ...}, one case per line.
    lines = []
    for name, rxs in FAMILIES.items():
        cases = [json.dumps([t, split(rxs, t)], ensure_ascii=False) for t in texts]
        lines.append(json.dumps(name) + ": [\n" + ",\n".join(cases) + "\n]")
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
