#include "text/search_terms.hpp"

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "text/escape.hpp"
#include "text/unicode.hpp"

namespace plaudit::text {
namespace {

bool IsCjk(UChar32 c) {
  // Letters only (the ideographic full stop is in these scripts too), by Script_Extensions,
  // so that the kana's shared marks (the prolonged sound mark ー, iteration marks) stay
  // inside their runs.
  return u_isalpha(c) != 0 &&
         (uscript_hasScript(c, USCRIPT_HAN) || uscript_hasScript(c, USCRIPT_HIRAGANA) ||
          uscript_hasScript(c, USCRIPT_KATAKANA) || uscript_hasScript(c, USCRIPT_HANGUL));
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

// A folded word's token, or nothing when it is shorter than two code points.
std::optional<std::string> WordToken(std::string_view word) {
  const auto* p = reinterpret_cast<const uint8_t*>(word.data());
  const auto n = static_cast<int32_t>(word.size());
  int32_t points = 0;
  int32_t cut = 0;  // the longest prefix of whole code points within kMaxWordBytes
  bool ascii = true;
  for (int32_t i = 0; i < n;) {
    UChar32 c;
    // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions): ICU's own increment, inside U8_NEXT.
    U8_NEXT(p, i, n, c);
    if (static_cast<size_t>(i) > kMaxWordBytes) {
      break;
    }
    cut = i;
    ++points;
    ascii = ascii && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
  }
  if (points < 2) {
    return std::nullopt;
  }
  word = word.substr(0, static_cast<size_t>(cut));
  return ascii ? "q" + std::string(word) : "u" + Hex(word);
}

// The words of `span` (text without CJK, at `offset` in the whole text): ICU's word
// segments that hold letters or digits, case-folded, split again at anything that is neither
// (so "example.com" and "don't" are found by their parts, as a query of them is cut alike).
void AddWords(std::string_view span, size_t offset, std::vector<SearchTerm>& out) {
  // One word iterator a thread, kept: opening one loads ICU's rules (tens of µs), and a text
  // of mixed Chinese and English asks for one per stretch between CJK runs.
  thread_local std::unique_ptr<UBreakIterator, decltype(&ubrk_close)> words = [] {
    UErrorCode open_status = U_ZERO_ERROR;
    UBreakIterator* opened = ubrk_open(UBRK_WORD, "", nullptr, 0, &open_status);
    return std::unique_ptr<UBreakIterator, decltype(&ubrk_close)>(
        U_FAILURE(open_status) ? nullptr : opened, &ubrk_close);
  }();
  UBreakIterator* bi = words.get();
  if (bi == nullptr) {
    return;
  }
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, span.data(), static_cast<int64_t>(span.size()), &status);
  std::unique_ptr<UText, decltype(&utext_close)> text(ut, &utext_close);
  if (U_FAILURE(status)) {
    return;
  }
  ubrk_setUText(bi, ut, &status);
  if (U_FAILURE(status)) {
    return;
  }
  int32_t start = ubrk_first(bi);
  for (int32_t end = ubrk_next(bi); end != UBRK_DONE; start = end, end = ubrk_next(bi)) {
    if (ubrk_getRuleStatus(bi) < UBRK_WORD_NUMBER) {
      continue;  // spaces, punctuation
    }
    // Runs of letters and digits inside the segment, each folded on its own so that its
    // place in the text stays known.
    const auto* p = reinterpret_cast<const uint8_t*>(span.data());
    int32_t i = start;
    while (i < end) {
      int32_t run_start = -1;
      int32_t run_end = i;
      while (i < end) {
        const int32_t at = i;
        UChar32 c;
        // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions): ICU's own increment.
        U8_NEXT(p, i, end, c);
        // Letters, digits, and marks (a decomposed accent is part of its letter).
        const bool part = c >= 0 && (u_isalnum(c) || (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0);
        if (part) {
          if (run_start < 0) {
            run_start = at;
          }
          run_end = i;
        } else if (run_start >= 0) {
          break;
        }
      }
      if (run_start < 0) {
        continue;
      }
      const std::string_view raw =
          span.substr(static_cast<size_t>(run_start), static_cast<size_t>(run_end - run_start));
      auto folded = FoldCase(raw);
      if (!folded) {
        continue;
      }
      if (auto token = WordToken(*folded)) {
        out.push_back(SearchTerm{std::move(*token), offset + static_cast<size_t>(run_start),
                                 offset + static_cast<size_t>(run_end)});
      }
    }
  }
}

}  // namespace

std::vector<SearchTerm> SearchTerms(std::string_view text) {
  std::vector<SearchTerm> out;
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const auto n = static_cast<int32_t>(text.size());
  size_t other_from = 0;  // where the text since the last CJK character began
  size_t prev_begin = 0;  // the CJK character before this one, when the run goes on
  bool in_run = false;
  for (int32_t i = 0; i < n;) {
    const auto at = static_cast<size_t>(i);
    UChar32 c;
    // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions): ICU's own increment.
    U8_NEXT(p, i, n, c);
    if (c < 0) {
      return {};
    }
    if (!IsCjk(c)) {
      if (in_run) {
        in_run = false;
        other_from = at;
      }
      continue;
    }
    if (!in_run) {
      AddWords(text.substr(other_from, at - other_from), other_from, out);
    } else {
      // The pair that ends here; folded, so that full-width and half-width kana and the
      // compatibility forms of a character pair alike.
      const std::string_view pair = text.substr(prev_begin, static_cast<size_t>(i) - prev_begin);
      auto folded = FoldCase(pair);
      if (folded) {
        out.push_back(SearchTerm{"x" + Hex(*folded), prev_begin, static_cast<size_t>(i)});
      }
    }
    in_run = true;
    prev_begin = at;
  }
  if (!in_run) {
    AddWords(text.substr(other_from), other_from, out);
  }
  return out;
}

std::string TermsText(const std::vector<SearchTerm>& terms) {
  std::string out;
  for (const SearchTerm& t : terms) {
    if (!out.empty()) {
      out.push_back(' ');
    }
    out += t.token;
  }
  return out;
}

Result<SearchQuery> ParseSearchQuery(std::string_view q) {
  if (q.size() > 4 * kMaxQueryChars || !FoldCase(q)) {
    return Fail(ErrorCode::kInvalidArgument, "q must be valid UTF-8 of at most 200 characters");
  }
  size_t chars = 0;
  for (unsigned char b : q) {
    chars += (b & 0xC0) != 0x80;
  }
  if (chars > kMaxQueryChars) {
    return Fail(ErrorCode::kInvalidArgument, "q is longer than 200 characters");
  }
  if (IsBlank(q)) {
    return Fail(ErrorCode::kInvalidArgument, "q is required");
  }
  SearchQuery out;
  const std::vector<SearchTerm> terms = SearchTerms(q);
  for (size_t i = 0; i < terms.size(); ++i) {
    // A CJK run's pairs overlap one another: one phrase.
    const bool goes_on = i > 0 && terms[i].token[0] == 'x' && terms[i - 1].token[0] == 'x' &&
                         terms[i].begin < terms[i - 1].end;
    if (goes_on) {
      out.phrases.back().push_back(terms[i].token);
    } else {
      out.phrases.push_back({terms[i].token});
    }
  }
  // A long CJK run: phrases of at most kMaxPhraseTerms pairs, each starting on the pair the
  // one before ended on (InnoDB refuses a phrase of more than 128 words; every backend gets
  // the same, so that all three find the same).
  std::vector<std::vector<std::string>> split;
  for (auto& phrase : out.phrases) {
    if (phrase.size() <= kMaxPhraseTerms) {
      split.push_back(std::move(phrase));
      continue;
    }
    for (size_t from = 0; from + 1 < phrase.size(); from += kMaxPhraseTerms - 1) {
      const size_t to = std::min(phrase.size(), from + kMaxPhraseTerms);
      split.emplace_back(phrase.begin() + static_cast<std::ptrdiff_t>(from),
                         phrase.begin() + static_cast<std::ptrdiff_t>(to));
    }
  }
  out.phrases = std::move(split);
  std::sort(out.phrases.begin(), out.phrases.end());
  out.phrases.erase(std::unique(out.phrases.begin(), out.phrases.end()), out.phrases.end());
  return out;
}

namespace {

// Where each phrase of `q` is found among `terms` (byte ranges of the text they were cut
// from), sorted and merged.
std::vector<std::pair<size_t, size_t>> Marks(const std::vector<SearchTerm>& terms,
                                             const SearchQuery& q, bool first_only) {
  std::vector<std::pair<size_t, size_t>> marks;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (const auto& phrase : q.phrases) {
      if (i + phrase.size() > terms.size()) {
        continue;
      }
      bool all = true;
      for (size_t k = 0; k < phrase.size() && all; ++k) {
        all = terms[i + k].token == phrase[k];
      }
      if (all) {
        marks.emplace_back(terms[i].begin, terms[i + phrase.size() - 1].end);
        if (first_only) {
          return marks;
        }
      }
    }
  }
  std::sort(marks.begin(), marks.end());
  std::vector<std::pair<size_t, size_t>> merged;
  for (const auto& m : marks) {
    if (!merged.empty() && m.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, m.second);
    } else {
      merged.push_back(m);
    }
  }
  return merged;
}

// `at` moved back to the start of its code point.
size_t PointStart(std::string_view text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) {
    --at;
  }
  return std::min(at, text.size());
}

// Where the first match of `q` begins, looking through `text` a stretch at a time (words
// are at most a few dozen bytes, so stretches overlapping by kOverlap miss none) and no
// further than `max_scan` bytes; nullopt without one.
std::optional<size_t> FirstMatch(std::string_view text, const SearchQuery& q, size_t max_scan) {
  constexpr size_t kStretch = size_t{8} * 1024;
  constexpr size_t kOverlap = 256;
  for (size_t from = 0; from < text.size() && from < max_scan; from += kStretch - kOverlap) {
    const size_t b = PointStart(text, from);
    const size_t e = PointStart(text, std::min({text.size(), b + kStretch, max_scan}));
    const auto marks = Marks(SearchTerms(text.substr(b, e - b)), q, /*first_only=*/true);
    if (!marks.empty()) {
      return b + marks.front().first;
    }
    if (e >= text.size() || e >= max_scan) {
      break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string SearchSnippet(std::string_view text, const SearchQuery& q, size_t width) {
  // Only the stretch up to the first match and the window after it are cut into terms: a
  // long text costs no more than its first match's place (at most kMaxSnippetScanBytes).
  const size_t first = FirstMatch(text, q, kMaxSnippetScanBytes).value_or(0);
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const auto n = static_cast<int32_t>(text.size());
  // The window: from a little before the first match, `width` code points.
  auto from_i = static_cast<int32_t>(first);
  for (size_t lead = 0; lead < width / 5 && from_i > 0; ++lead) {
    U8_BACK_1(p, 0, from_i);
  }
  auto to_i = from_i;
  for (size_t k = 0; k < width && to_i < n; ++k) {
    // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions): ICU's own increment.
    U8_FWD_1(p, to_i, n);
  }
  const auto from = static_cast<size_t>(from_i);
  const auto to = static_cast<size_t>(to_i);
  const std::string_view window = text.substr(from, to - from);
  const auto merged = Marks(SearchTerms(window), q, /*first_only=*/false);

  std::string out;
  if (from > 0) {
    out += "…";
  }
  size_t at = 0;
  for (const auto& [b, e] : merged) {
    if (b < at) {
      continue;
    }
    out += EscapeHtml(window.substr(at, b - at));
    out += "<mark>";
    out += EscapeHtml(window.substr(b, e - b));
    out += "</mark>";
    at = e;
  }
  out += EscapeHtml(window.substr(at));
  if (to < text.size()) {
    out += "…";
  }
  return out;
}

}  // namespace plaudit::text
