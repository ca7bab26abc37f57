#pragma once
// HTML sanitiser for user-written articles and comments, and the plain-text summary shown in
// lists. The stored HTML is rebuilt from an allow-list, never filtered from the input, so
// anything the allow-list does not name cannot reach a browser.
#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::text {

struct SanitizedHtml {
  std::string html;  // safe HTML to store and serve
  std::string text;  // the visible text (for the summary and search), whitespace collapsed
};

// Largest input SanitizeHtml accepts, in bytes.
inline constexpr size_t kMaxHtmlBytes = size_t{1} << 20;
// Elements nested deeper than this lose their tags; their text is kept.
inline constexpr size_t kMaxHtmlDepth = 200;

// What SanitizeHtml lets through beyond the allow-list's common part.
struct SanitizeOptions {
  bool images = true;  // false: an img becomes its alt text
  // Links readers wrote (comments): rel also says "ugc", and they open in a new tab
  // (target="_blank"; safe with noopener).
  bool user_links = false;
  // Mentions the comment renderer marked (text/markdown.hpp): <span class="mention"> is kept,
  // with that attribute only; any other span is unwrapped, as always.
  bool mentions = false;
};
inline constexpr std::string_view kMentionClass = "mention";

// Parses `input` as an HTML fragment (as if inside <body>) and rebuilds it from an allow-list:
//   p br b i em strong ul ol li blockquote code pre h1-h6 — no attributes;
//   a   — only with an http, https or mailto href, plus rel="nofollow noopener noreferrer"
//         (user_links: rel="nofollow noopener noreferrer ugc" target="_blank");
//         an <a> without such an href is unwrapped (its text stays, the tag goes);
//   img — only with an http or https src, plus alt; dropped without one (without `images`:
//         its alt text instead);
//   span — only class="mention", and only with `mentions` (a comment's marked mentions).
// script, style, iframe, object, embed, form and its controls, template, noscript, svg, math,
// link, meta, base, frame(set), applet, head, title (and the other raw-text elements xmp,
// noembed, noframes, plaintext) are dropped with their content; any other element is
// unwrapped. Comments, doctypes and CDATA are dropped. Malformed HTML is repaired the way a
// browser would, so `html` is always well-formed.
// `text` is plain text, not HTML: escape it before putting it in a page.
// Errors (kInvalidArgument): input over kMaxHtmlBytes, invalid UTF-8, or markup that would
// make the parser build an unreasonably large tree ("too complex").
[[nodiscard]] Result<SanitizedHtml> SanitizeHtml(std::string_view input,
                                                 const SanitizeOptions& options = {});

// The first `max_code_points` Unicode code points of `text` (never splitting a code point),
// with white space trimmed from both ends.
std::string Summary(std::string_view text, size_t max_code_points = 64);

}  // namespace plaudit::text
