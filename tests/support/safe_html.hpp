#pragma once
// The oracle of the sanitiser's tests (tests/unit/sanitizer_test.cpp), the Markdown ones
// (markdown_test.cpp) and their fuzzers (fuzz/sanitizer.cpp, fuzz/markdown.cpp): sanitised
// HTML parsed again as a browser would, every element and attribute checked against the
// allow-list, independently of the sanitiser's own code. It says what it found (no test
// framework here: a fuzzer aborts on it, a test fails with it; tests/unit/safe_html.hpp).
#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plaudit::testing_html {

// What an <a> must carry: its rel, and whether target="_blank" may be there too; and whether
// the raw string may hold scheme names as text ("javascript:" in a comment about it).
struct Links {
  std::string rel = "nofollow noopener noreferrer";
  bool new_tab = false;
  bool schemes_as_text = false;
  // A comment's marked mentions: <span class="mention"> (that attribute, always), no other span.
  bool mentions = false;
};

inline std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// An independent check of a URL the sanitiser let through: a lower-case prefix test.
inline bool UrlIsSafe(std::string_view url, bool allow_mailto) {
  if (std::any_of(url.begin(), url.end(), [](unsigned char c) { return c < 0x20 || c == 0x7F; })) {
    return false;
  }
  std::string lower = Lower(url);
  return lower.starts_with("http://") || lower.starts_with("https://") ||
         (allow_mailto && lower.starts_with("mailto:"));
}

// What the check found: the output's nesting depth, and each problem in words (none: safe).
struct SafetyReport {
  int depth = 0;
  std::vector<std::string> problems;
};

inline void CheckNode(const GumboNode& node, int depth, const Links& links, SafetyReport& out) {
  auto problem = [&out](std::string what) { out.problems.push_back(std::move(what)); };
  switch (node.type) {
    case GUMBO_NODE_TEXT:
    case GUMBO_NODE_WHITESPACE:
      return;
    case GUMBO_NODE_ELEMENT:
      break;
    default:
      problem("comment, CDATA or template node in the output (type " + std::to_string(node.type) +
              ")");
      return;
  }
  out.depth = std::max(out.depth, depth);
  const GumboElement& element = node.v.element;
  std::string tag = element.tag == GUMBO_TAG_UNKNOWN
                        ? std::string(element.original_tag.data, element.original_tag.length)
                        : gumbo_normalized_tagname(element.tag);
  if (element.tag_namespace != GUMBO_NAMESPACE_HTML) {
    problem(tag + " is not an HTML element");
  }
  static const std::vector<std::string> kAllowed = {
      "p",          "br",   "b",   "i",  "em", "strong", "a",  "ul", "ol", "li",
      "blockquote", "code", "pre", "h1", "h2", "h3",     "h4", "h5", "h6", "img"};
  const bool mention = links.mentions && tag == "span";
  if (!mention && std::find(kAllowed.begin(), kAllowed.end(), tag) == kAllowed.end()) {
    problem("element <" + tag + "> is not allowed");
  }
  if (mention) {
    const GumboAttribute* cls = gumbo_get_attribute(&element.attributes, "class");
    if (cls == nullptr || std::string_view(cls->value) != "mention") {
      problem("<span> that is no mention");
    }
  }
  for (unsigned i = 0; i < element.attributes.length; ++i) {
    const auto& attr = *static_cast<const GumboAttribute*>(element.attributes.data[i]);
    std::string name = attr.name;
    std::string value = attr.value;
    if (tag == "a" && name == "href") {
      if (!UrlIsSafe(value, true)) {
        problem("unsafe href " + value);
      }
    } else if (tag == "a" && name == "rel") {
      if (value != links.rel) {
        problem("rel=\"" + value + "\", not \"" + links.rel + "\"");
      }
    } else if (tag == "a" && name == "target" && links.new_tab) {
      if (value != "_blank") {
        problem("target=\"" + value + "\"");
      }
    } else if (tag == "img" && name == "src") {
      if (!UrlIsSafe(value, false)) {
        problem("unsafe src " + value);
      }
    } else if (tag == "img" && name == "alt") {
      // any text
    } else if (mention && name == "class" && value == "mention") {
      // checked above
    } else {
      problem("attribute " + name + "=\"" + value + "\" on <" + tag + ">");
    }
  }
  if (tag == "a") {
    for (const char* needed : {"href", "rel"}) {
      if (gumbo_get_attribute(&element.attributes, needed) == nullptr) {
        problem(std::string("<a> without ") + needed);
      }
    }
    if (links.new_tab && gumbo_get_attribute(&element.attributes, "target") == nullptr) {
      problem("<a> without target");
    }
  }
  if (tag == "img") {
    if (gumbo_get_attribute(&element.attributes, "src") == nullptr) {
      problem("<img> without src");
    }
  }
  for (unsigned i = 0; i < element.children.length; ++i) {
    CheckNode(*static_cast<const GumboNode*>(element.children.data[i]), depth + 1, links, out);
  }
}

// Whether some tag in `html` has an attribute named on...=, the shape of an event handler.
// A quoted attribute value is skipped ("https://x/?a onclick=" is an href, not a handler:
// fuzz/sanitizer.cpp's first finding was this check reading inside one); a quote opens a value
// only after '=', as in a browser, and the closing quote ends it like white space would.
inline bool HasEventAttribute(std::string_view html) {
  std::string lower = Lower(html);
  auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; };
  // Whether an on...= attribute name starts right after position i.
  auto handler_after = [&](size_t i) {
    if (i + 2 >= lower.size() || lower[i + 1] != 'o' || lower[i + 2] != 'n') {
      return false;
    }
    size_t j = i + 3;
    while (j < lower.size() && letter(lower[j])) {
      ++j;
    }
    while (j < lower.size() && space(lower[j])) {
      ++j;
    }
    return j > i + 3 && j < lower.size() && lower[j] == '=';
  };
  bool in_tag = false;
  char quote = 0;
  char last = 0;  // the last character in the tag that is not white space
  for (size_t i = 0; i < lower.size(); ++i) {
    const char c = lower[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
        last = c;
        if (handler_after(i)) {
          return true;
        }
      }
      continue;
    }
    if (c == '<' || c == '>') {
      in_tag = c == '<';
      last = 0;
      continue;
    }
    if (!in_tag) {
      continue;
    }
    if ((c == '"' || c == '\'') && last == '=') {
      quote = c;
      continue;
    }
    if ((space(c) || c == '/' || c == '"' || c == '\'') && handler_after(i)) {
      return true;
    }
    if (!space(c)) {
      last = c;
    }
  }
  return false;
}

// Parses sanitised HTML again, as a browser would, and checks every element and attribute
// against the allow-list; also looks for the usual markers in the raw string.
inline SafetyReport CheckSafe(std::string_view html, const Links& links = {}) {
  SafetyReport out;
  std::string lower = Lower(html);
  for (const char* marker : {"<script", "javascript:", "vbscript:", "data:", "<iframe", "<style",
                             "<object", "<embed", "<form", "<svg", "<math", "<base", "<meta"}) {
    if (links.schemes_as_text && marker[0] != '<') {
      continue;  // checked where it matters: every href and src below
    }
    if (lower.find(marker) != std::string::npos) {
      out.problems.push_back(std::string("found ") + marker + " in " + std::string(html));
    }
  }
  if (HasEventAttribute(html)) {
    out.problems.push_back("event handler attribute in " + std::string(html));
  }

  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_BODY;
  GumboOutput* output = gumbo_parse_with_options(&options, html.data(), html.size());
  const GumboVector& children = output->root->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    CheckNode(*static_cast<const GumboNode*>(children.data[i]), 1, links, out);
  }
  gumbo_destroy_output(&options, output);
  return out;
}

}  // namespace plaudit::testing_html
