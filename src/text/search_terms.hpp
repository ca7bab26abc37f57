#pragma once
// Search terms (API.md "Search"): what the search index stores of a text and what a query
// looks for, the same on SQLite, PostgreSQL and MariaDB, so that each backend's own full-text
// index (FTS5, tsvector, FULLTEXT) only has to match plain ASCII words.
//
// - Words of scripts written with spaces: ICU's word boundaries, NFKC case-folded
//   (text/unicode.hpp's FoldCase), at least two code points (one letter finds too much, and
//   MariaDB's InnoDB ignores words shorter than three characters), at most kMaxWordBytes.
// - Chinese, Japanese and Korean (Han, Hiragana, Katakana, Hangul), written without spaces:
//   each run as its overlapping pairs ("中文搜索" → 中文, 文搜, 搜索), so that any substring of
//   two characters or more is found as the phrase of its pairs, wherever the words would be
//   cut (API.md: "found by substrings of two characters or more").
// - Each term is one ASCII token: "q" + the word when it is [a-z0-9], else "u" + the hex of
//   its UTF-8; "x" + the hex of a pair. The prefixes keep tokens at three characters or more
//   and out of InnoDB's default stopword list ("the" is "qthe"; no stopword begins with q or
//   x, and none with u and a hex digit: a "w" prefix made "here" the stopword "where"); hex
//   keeps every parser from splitting or skipping CJK text by its own rules.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace plaudit::text {

inline constexpr size_t kMaxWordBytes = 40;

struct SearchTerm {
  std::string token;  // [a-z0-9]+, as above
  size_t begin = 0;   // where in the text (bytes): the word, or the pair
  size_t end = 0;
};

// `text`'s terms in text order; invalid UTF-8 gives none.
std::vector<SearchTerm> SearchTerms(std::string_view text);
// The tokens, space-separated (what the index stores).
std::string TermsText(const std::vector<SearchTerm>& terms);

// A query: every phrase must be found (a word is a phrase of one token; a CJK run, of its
// pairs, in order). Empty when the query has no term (a single CJK character, punctuation).
struct SearchQuery {
  std::vector<std::vector<std::string>> phrases;
  bool empty() const { return phrases.empty(); }
};
// kInvalidArgument: invalid UTF-8, blank, or longer than kMaxQueryChars code points (the
// search box's maxlength, which counts UTF-16 units: never fewer than code points).
inline constexpr size_t kMaxQueryChars = 200;
// Terms in one phrase at most (a longer CJK run is searched as overlapping phrases of these).
inline constexpr size_t kMaxPhraseTerms = 64;
Result<SearchQuery> ParseSearchQuery(std::string_view q);

// About `width` code points of `text` around its first match of `q`, HTML-escaped, each
// match in <mark>…</mark>; "…" where it was cut. Without a match in the first
// kMaxSnippetScanBytes: the text's start.
inline constexpr size_t kMaxSnippetScanBytes = size_t{64} * 1024;
std::string SearchSnippet(std::string_view text, const SearchQuery& q, size_t width = 160);

}  // namespace plaudit::text
