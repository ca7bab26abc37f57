// The comment Markdown renderer (text/markdown.hpp) on any bytes, with the options the first
// byte picks: its HTML must pass the sanitiser tests' oracle (tests/support/safe_html.hpp),
// with readers' links (rel "… ugc", a new tab) and marked mentions. A problem aborts.
#include "text/markdown.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "support/safe_html.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) {
    return 0;
  }
  namespace text = plaudit::text;
  const uint8_t flags = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  text::MarkdownOptions options;
  options.images = (flags & 1) != 0;
  options.raw_html = (flags & 2) != 0;
  if ((flags & 4) != 0) {
    options.mentionable = {"admin", "ann", "bob"};  // sorted, lower-cased, as the service gives
  }
  auto r = text::RenderCommentMarkdown(body, options);
  if (!r) {
    return 0;  // refused: invalid UTF-8, or HTML over the limit
  }
  const plaudit::testing_html::Links links{.rel = "nofollow noopener noreferrer ugc",
                                           .new_tab = true,
                                           .schemes_as_text = true,
                                           .mentions = true};
  const auto report = plaudit::testing_html::CheckSafe(r->html, links);
  for (const auto& problem : report.problems) {
    std::fprintf(stderr, "unsafe output: %s\n", problem.c_str());
  }
  if (!report.problems.empty()) {
    std::abort();
  }
  return 0;
}
