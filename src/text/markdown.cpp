#include "text/markdown.hpp"

#include <cmark.h>

#include <cstdlib>
#include <memory>

#include "text/utf8.hpp"

namespace plaudit::text {

Result<SanitizedHtml> RenderCommentMarkdown(std::string_view body, const MarkdownOptions& options) {
  if (!CodePoints(body)) {
    return Fail(ErrorCode::kInvalidArgument, "text is not valid UTF-8");
  }
  // cmark allocates with malloc (its default allocator) and leaves freeing to the caller.
  const std::unique_ptr<char, decltype(&std::free)> html(
      cmark_markdown_to_html(body.data(), body.size(), CMARK_OPT_HARDBREAKS), &std::free);
  if (html == nullptr) {
    return Fail(ErrorCode::kInternal, "could not render the text");
  }
  SanitizeOptions sanitize;
  sanitize.images = options.images;
  sanitize.user_links = true;
  PL_TRY(SanitizedHtml out, SanitizeHtml(html.get(), sanitize));
  // cmark ends every block with a newline; the last one is no part of the comment.
  while (!out.html.empty() && out.html.back() == '\n') {
    out.html.pop_back();
  }
  return out;
}

}  // namespace plaudit::text
