#pragma once
// What text looks like to a reader, beyond its bytes (issue 41, item 14): whether anything
// visible is in it, the bidirectional controls that can reorder what follows them, and the
// "skeleton" that two look-alike names share. Character properties and the confusables data
// are ICU's (libicu), not tables of our own.
//
// Decisions (docs/security.md, "Issue 41"):
// - Invisible: White_Space, Default_Ignorable_Code_Point (format characters such as U+200B..
//   U+200F, U+2060..U+2064, U+FEFF, variation selectors, Hangul fillers, U+034F), combining
//   marks (General Category M: with nothing visible to sit on they show nothing) and U+2800
//   (braille blank). Text of only these is blank.
// - Bidi controls (Bidi_Control: U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069):
//   refused in names and titles, which are short and shown beside other text. A comment body
//   loses its embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069: an unbalanced
//   one reverses or re-embeds everything after it), and keeps the marks (U+200E, U+200F,
//   U+061C), which hold no state and are how right-to-left writers fix punctuation.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::text {

// True when valid UTF-8 `s` shows nothing: empty, or only invisible code points (above).
bool IsBlank(std::string_view s);

// Whether `s` holds any Bidi_Control code point.
bool HasBidiControl(std::string_view s);

// `s` without its bidi embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069);
// the marks stay. `s` must be valid UTF-8.
std::string StripBidiEmbeddings(std::string_view s);

// NFKC case folding (Unicode's NFKC_Casefold: "ＳＰＡＭ" and "spam" fold alike), for matching
// words whatever their case and width. kInvalidArgument for invalid UTF-8.
Result<std::string> FoldCase(std::string_view s);

// The form two names share when they look alike: NFKC case folding (which also drops default
// ignorables), then UTS #39's confusable skeleton (ICU uspoof_getSkeleton: Cyrillic 'а' and
// Latin 'a', '0' and 'O', 'I' and 'l'), case-folded again, white space runs as one space, ends
// trimmed. kInvalidArgument for invalid UTF-8.
Result<std::string> NameSkeleton(std::string_view name);

}  // namespace plaudit::text
