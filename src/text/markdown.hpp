#pragma once
// Comment bodies as Markdown (API.md "Comment text"): CommonMark through cmark (Debian's
// libcmark), then the sanitiser's allow-list over cmark's output. cmark's safe mode (its
// default) already leaves out raw HTML and javascript:/vbscript:/file:/data: links; the
// allow-list is what decides anyway, so whatever cmark emits, the stored HTML holds only what
// SanitizeHtml names: readers' links carry rel "… ugc" and open in a new tab, and images are
// their alt text unless the site lets comments show them (--comment-images).
// A newline in a comment is a line break (CMARK_OPT_HARDBREAKS), as readers of a comment box
// expect; a blank line starts a paragraph.
// Not yet wired to comments (issue 48): the rendering, stored with the comment, comes next.
#include <string_view>

#include "common/result.hpp"
#include "text/sanitizer.hpp"

namespace plaudit::text {

struct MarkdownOptions {
  bool images = false;
};

// `body`'s HTML and visible text. kInvalidArgument: invalid UTF-8, or over kMaxHtmlBytes of
// HTML (a 10,000-code-point body renders to far less).
[[nodiscard]] Result<SanitizedHtml> RenderCommentMarkdown(std::string_view body,
                                                          const MarkdownOptions& options = {});

}  // namespace plaudit::text
