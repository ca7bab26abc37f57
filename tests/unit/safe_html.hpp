#pragma once
// The oracle of the sanitiser's tests (sanitizer_test.cpp) and the Markdown ones
// (markdown_test.cpp): sanitised HTML parsed again as a browser would, every element and
// attribute checked against the allow-list, independently of the sanitiser's own code.
#include <gtest/gtest.h>
#include <gumbo.h>

#include <algorithm>
#include <string>
#include <string_view>
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

inline void CheckNode(const GumboNode& node, int depth, int& max_depth, const Links& links) {
  switch (node.type) {
    case GUMBO_NODE_TEXT:
    case GUMBO_NODE_WHITESPACE:
      return;
    case GUMBO_NODE_ELEMENT:
      break;
    default:
      ADD_FAILURE() << "comment, CDATA or template node in the output (type " << node.type << ")";
      return;
  }
  max_depth = std::max(max_depth, depth);
  const GumboElement& element = node.v.element;
  std::string tag = element.tag == GUMBO_TAG_UNKNOWN
                        ? std::string(element.original_tag.data, element.original_tag.length)
                        : gumbo_normalized_tagname(element.tag);
  EXPECT_EQ(element.tag_namespace, GUMBO_NAMESPACE_HTML) << tag << " is not an HTML element";
  static const std::vector<std::string> kAllowed = {
      "p",          "br",   "b",   "i",  "em", "strong", "a",  "ul", "ol", "li",
      "blockquote", "code", "pre", "h1", "h2", "h3",     "h4", "h5", "h6", "img"};
  const bool mention = links.mentions && tag == "span";
  EXPECT_TRUE(mention || std::find(kAllowed.begin(), kAllowed.end(), tag) != kAllowed.end())
      << "element <" << tag << "> is not allowed";
  if (mention) {
    const GumboAttribute* cls = gumbo_get_attribute(&element.attributes, "class");
    EXPECT_TRUE(cls != nullptr && std::string_view(cls->value) == "mention")
        << "<span> that is no mention";
  }
  for (unsigned i = 0; i < element.attributes.length; ++i) {
    const auto& attr = *static_cast<const GumboAttribute*>(element.attributes.data[i]);
    std::string name = attr.name;
    std::string value = attr.value;
    if (tag == "a" && name == "href") {
      EXPECT_TRUE(UrlIsSafe(value, true)) << "unsafe href " << value;
    } else if (tag == "a" && name == "rel") {
      EXPECT_EQ(value, links.rel);
    } else if (tag == "a" && name == "target" && links.new_tab) {
      EXPECT_EQ(value, "_blank");
    } else if (tag == "img" && name == "src") {
      EXPECT_TRUE(UrlIsSafe(value, false)) << "unsafe src " << value;
    } else if (tag == "img" && name == "alt") {
      // any text
    } else if (mention && name == "class" && value == "mention") {
      // checked above
    } else {
      ADD_FAILURE() << "attribute " << name << "=\"" << value << "\" on <" << tag << ">";
    }
  }
  if (tag == "a") {
    EXPECT_NE(gumbo_get_attribute(&element.attributes, "href"), nullptr) << "<a> without href";
    EXPECT_NE(gumbo_get_attribute(&element.attributes, "rel"), nullptr) << "<a> without rel";
    if (links.new_tab) {
      EXPECT_NE(gumbo_get_attribute(&element.attributes, "target"), nullptr)
          << "<a> without target";
    }
  }
  if (tag == "img") {
    EXPECT_NE(gumbo_get_attribute(&element.attributes, "src"), nullptr) << "<img> without src";
  }
  for (unsigned i = 0; i < element.children.length; ++i) {
    CheckNode(*static_cast<const GumboNode*>(element.children.data[i]), depth + 1, max_depth,
              links);
  }
}

// Whether some tag in `html` has an attribute named on...=, the shape of an event handler.
inline bool HasEventAttribute(std::string_view html) {
  std::string lower = Lower(html);
  auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; };
  bool in_tag = false;
  for (size_t i = 0; i + 2 < lower.size(); ++i) {
    char c = lower[i];
    if (c == '<' || c == '>') {
      in_tag = c == '<';
      continue;
    }
    if (!in_tag || !(space(c) || c == '/' || c == '"' || c == '\'') || lower[i + 1] != 'o' ||
        lower[i + 2] != 'n') {
      continue;
    }
    size_t j = i + 3;
    while (j < lower.size() && letter(lower[j])) {
      ++j;
    }
    while (j < lower.size() && space(lower[j])) {
      ++j;
    }
    if (j > i + 3 && j < lower.size() && lower[j] == '=') {
      return true;
    }
  }
  return false;
}

// Parses sanitised HTML again, as a browser would, and checks every element and attribute
// against the allow-list; also looks for the usual markers in the raw string. Returns the
// nesting depth of the output.
inline int AssertSafe(std::string_view html, const Links& links = {}) {
  std::string lower = Lower(html);
  for (const char* marker : {"<script", "javascript:", "vbscript:", "data:", "<iframe", "<style",
                             "<object", "<embed", "<form", "<svg", "<math", "<base", "<meta"}) {
    if (links.schemes_as_text && marker[0] != '<') {
      continue;  // checked where it matters: every href and src below
    }
    EXPECT_EQ(lower.find(marker), std::string::npos) << "found " << marker << " in " << html;
  }
  EXPECT_FALSE(HasEventAttribute(html)) << "event handler attribute in " << html;

  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_BODY;
  GumboOutput* output = gumbo_parse_with_options(&options, html.data(), html.size());
  int max_depth = 0;
  const GumboVector& children = output->root->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    CheckNode(*static_cast<const GumboNode*>(children.data[i]), 1, max_depth, links);
  }
  gumbo_destroy_output(&options, output);
  return max_depth;
}

}  // namespace plaudit::testing_html
