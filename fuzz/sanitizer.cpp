// The HTML sanitiser (text/sanitizer.hpp) on any bytes, with each option set the first byte
// picks: whatever it returns must pass the tests' own oracle (tests/support/safe_html.hpp:
// the output parsed again as a browser would, every element and attribute on the allow-list,
// nested no deeper than the sanitiser's limit). A problem aborts, so libFuzzer keeps the input.
#include "text/sanitizer.hpp"

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
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  text::SanitizeOptions options;
  options.images = (flags & 1) != 0;
  options.user_links = (flags & 2) != 0;
  options.mentions = (flags & 4) != 0;
  auto r = text::SanitizeHtml(input, options);
  if (!r) {
    return 0;  // refused (too large, invalid UTF-8, too complex): nothing to check
  }
  plaudit::testing_html::Links links;
  if (options.user_links) {
    links.rel = "nofollow noopener noreferrer ugc";
    links.new_tab = true;
  }
  links.mentions = options.mentions;
  // A link's text may name a scheme ("javascript:" in a comment about it); every href and src
  // is checked where it is.
  links.schemes_as_text = true;
  const auto report = plaudit::testing_html::CheckSafe(r->html, links);
  bool bad = !report.problems.empty();
  if (report.depth > static_cast<int>(text::kMaxHtmlDepth) + 1) {
    std::fprintf(stderr, "output nested %d deep\n", report.depth);
    bad = true;
  }
  for (const auto& problem : report.problems) {
    std::fprintf(stderr, "unsafe output: %s\n", problem.c_str());
  }
  if (bad) {
    std::abort();
  }
  return 0;
}
