#pragma once
// Comment bodies as Markdown (API.md "Comment text"): CommonMark through cmark (Debian's
// libcmark), then the sanitiser's allow-list over cmark's output. Raw HTML in a body is shown
// as the text it is (cmark's tree is changed before rendering: its HTML nodes become text);
// cmark's safe mode (its default) leaves out javascript:/vbscript:/file:/data: links; the
// allow-list is what decides anyway, so whatever cmark emits, the stored HTML holds only what
// SanitizeHtml names: readers' links carry rel "… ugc" and open in a new tab, and images are
// their alt text unless the site lets comments show them (--comment-images).
// A newline in a comment is a line break (CMARK_OPT_HARDBREAKS), as readers of a comment box
// expect; a blank line starts a paragraph.
// Rendered once when a comment is written (CommentService) and stored with it (migration 024).
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "text/sanitizer.hpp"

namespace plaudit::text {

struct MarkdownOptions {
  bool images = false;
  // Lower-cased usernames a `@name` in the text becomes a mention of (<span class="mention">,
  // text/mentions.hpp's rule; not inside a link or code): the thread's participants, as the
  // service found them. Sorted.
  std::vector<std::string> mentionable;
  // Raw HTML in the text is passed on for the allow-list to judge, rather than shown as text:
  // for text written where Markdown allowed HTML (an import from Waline), not for readers'.
  bool raw_html = false;
};

// `body`'s HTML and visible text. kInvalidArgument: invalid UTF-8, or over kMaxHtmlBytes of
// HTML (a 10,000-code-point body renders to far less).
[[nodiscard]] Result<SanitizedHtml> RenderCommentMarkdown(std::string_view body,
                                                          const MarkdownOptions& options = {});

}  // namespace plaudit::text
