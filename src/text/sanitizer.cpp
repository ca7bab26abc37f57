#include "text/sanitizer.hpp"

// Design note. Three stages, each there for a reason:
//
// 1. Canonicalize: a small tokenizer rewrites the input into markup whose tokenization is
//    unambiguous (text with every '<' escaped, plain start tags carrying only href/src/alt
//    (and class="mention") in double quotes, plain end tags) and drops what stage 3 would drop
//    anyway but whose content changes how HTML is tokenized (script, style, textarea, title, ...,
//    svg, math, comments). It keeps a stack of open elements that can only overestimate gumbo's (it
//    pops only on an end tag for the element on top, or on an implied sibling close like <p><p>),
//    and drops start tags beyond kMaxHtmlDepth. This bounds gumbo's work: gumbo 0.10 scans its
//    stack of open elements on every tag and every character, so 1 MiB of "<div>" or of
//    "<b>" followed by text takes minutes, not milliseconds. Because gumbo tokenizes the
//    canonical markup exactly as we did, the bound holds whatever the input was; a mistake in
//    this tokenizer can only change which safe markup we keep, never let markup through.
// 2. Parse with gumbo, as a fragment inside <body>, with a counting arena as its allocator:
//    misnested formatting elements make the parser clone them again and again (a 65 KB
//    input can become 9 million nodes), so the arena longjmps out of gumbo once the tree
//    outgrows its budget. The arena also frees the tree in one pass, because
//    gumbo_destroy_output recurses once per level.
// 3. Walk the tree and write the allow-listed elements, escaping all text and attributes.
//    This is the only stage security depends on.

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <csetjmp>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "text/utf8.hpp"

namespace plaudit::text {
namespace {

// Gumbo's live memory may reach this plus kParseMemoryPerByte per canonical input byte.
// Ordinary documents need under 15 bytes per byte, the densest markup ("<p>x<p>x...") about
// 71; a tree of re-opened formatting elements needs far more.
constexpr size_t kParseMemoryBase = size_t{16} << 20;
constexpr size_t kParseMemoryPerByte = 64;

constexpr std::string_view kLinkRel = "nofollow noopener noreferrer";
// Google's mark for user-generated links: what readers write in comments.
constexpr std::string_view kUserLinkRel = "nofollow noopener noreferrer ugc";

bool IsHtmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsAsciiControl(char c) {
  auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         });
}

template <size_t N>
bool OneOf(std::string_view name, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---------------------------------------------------------------------------------------------
// Stage 1: canonical markup with bounded nesting.

// Their content is not markup (raw text, RCDATA, script data) and stage 3 drops them.
constexpr std::array<std::string_view, 9> kRawTextTags = {
    "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title"};
// Foreign content tokenizes differently (CDATA, self-closing tags); stage 3 drops it.
constexpr std::array<std::string_view, 2> kForeignTags = {"svg", "math"};
// Ignored by gumbo in a <body> fragment or dropped by stage 3 without any content.
constexpr std::array<std::string_view, 6> kIgnoredTags = {"html",     "head",  "body",
                                                          "frameset", "frame", "isindex"};
// Dropped with their content by stage 3; when nesting is too deep to pass the tag on, the
// content must still go, not become text.
constexpr std::array<std::string_view, 9> kDroppedContainers = {
    "object", "applet", "form", "button", "select", "option", "optgroup", "datalist", "template"};
// Elements gumbo closes as soon as it inserts them (in HTML content, which is all it sees).
constexpr std::array<std::string_view, 18> kVoidTags = {
    "area", "base",  "basefont", "bgsound", "br",   "col",   "embed",  "hr",    "image",
    "img",  "input", "keygen",   "link",    "meta", "param", "source", "track", "wbr"};

class Canonicalizer {
 public:
  explicit Canonicalizer(std::string_view in) : in_(in) { out_.reserve(in.size() + 64); }

  std::string Run() && {
    while (pos_ < in_.size()) {
      size_t lt = in_.find('<', pos_);
      AppendText(in_.substr(pos_, lt == std::string_view::npos ? lt : lt - pos_));
      if (lt == std::string_view::npos) {
        break;
      }
      pos_ = lt;
      bool has_next = pos_ + 1 < in_.size();
      bool has_after = pos_ + 2 < in_.size();
      char next = has_next ? in_[pos_ + 1] : '\0';
      char after = has_after ? in_[pos_ + 2] : '\0';
      if (IsAsciiAlpha(next) || (next == '/' && IsAsciiAlpha(after))) {
        std::optional<Tag> tag = ReadTag();
        if (!tag) {
          break;  // the input ended inside the tag: HTML drops such a tag
        }
        Handle(*tag);
      } else if (in_.substr(pos_).starts_with("<!--")) {
        SkipComment();
      } else if (has_next && (next == '!' || next == '?' || (next == '/' && has_after))) {
        // Doctype, CDATA (outside foreign content), processing instruction, "</3": all
        // bogus comments, which end at the next '>'.
        size_t gt = in_.find('>', pos_);
        pos_ = gt == std::string_view::npos ? in_.size() : gt + 1;
      } else {
        AppendText(next == '/' ? "&lt;/" : "&lt;");
        pos_ += next == '/' ? 2 : 1;
      }
    }
    return std::move(out_);
  }

 private:
  struct Tag {
    bool end = false;
    bool self_closing = false;
    std::string name;  // ASCII-lowercased
    // Raw values: character references are left for gumbo to decode.
    std::optional<std::string_view> href, src, alt;
    // class="mention" (a comment's marked mention, stage 3's one class), else nothing.
    std::optional<std::string_view> cls;
  };

  void AppendText(std::string_view s) {
    if (skip_depth_ == 0) {
      out_ += s;
    }
  }

  // Reads the tag at pos_ (a '<'), following the HTML tokenizer's states for names and
  // attributes so that quoted '>' characters do not end it. nullopt: the input ended inside.
  std::optional<Tag> ReadTag() {
    Tag tag;
    size_t n = in_.size();
    size_t i = pos_ + 1;
    if (in_[i] == '/') {
      tag.end = true;
      ++i;
    }
    for (; i < n && !IsHtmlSpace(in_[i]) && in_[i] != '/' && in_[i] != '>'; ++i) {
      tag.name += AsciiLower(in_[i]);
    }
    bool slash = false;
    while (true) {
      while (i < n && (IsHtmlSpace(in_[i]) || in_[i] == '/')) {
        slash = in_[i] == '/';
        ++i;
      }
      if (i >= n) {
        pos_ = n;
        return std::nullopt;
      }
      if (in_[i] == '>') {
        tag.self_closing = slash;
        pos_ = i + 1;
        return tag;
      }
      slash = false;
      size_t name_start = i++;  // the first character may be '=': HTML makes it part of the name
      while (i < n && !IsHtmlSpace(in_[i]) && in_[i] != '/' && in_[i] != '>' && in_[i] != '=') {
        ++i;
      }
      std::string_view attr = in_.substr(name_start, i - name_start);
      while (i < n && IsHtmlSpace(in_[i])) {
        ++i;
      }
      std::string_view value;
      if (i < n && in_[i] == '=') {
        ++i;
        while (i < n && IsHtmlSpace(in_[i])) {
          ++i;
        }
        if (i < n && (in_[i] == '"' || in_[i] == '\'')) {
          size_t close = in_.find(in_[i], i + 1);
          if (close == std::string_view::npos) {
            pos_ = n;
            return std::nullopt;
          }
          value = in_.substr(i + 1, close - i - 1);
          i = close + 1;
        } else {
          size_t start = i;
          while (i < n && !IsHtmlSpace(in_[i]) && in_[i] != '>') {
            ++i;
          }
          value = in_.substr(start, i - start);
        }
      }
      // Duplicates: HTML keeps the first.
      if (EqualsIgnoreCase(attr, "href") && !tag.href) {
        tag.href = value;
      }
      if (EqualsIgnoreCase(attr, "src") && !tag.src) {
        tag.src = value;
      }
      if (EqualsIgnoreCase(attr, "alt") && !tag.alt) {
        tag.alt = value;
      }
      if (EqualsIgnoreCase(attr, "class") && !tag.cls && value == kMentionClass) {
        tag.cls = value;
      }
    }
  }

  void SkipComment() {
    // From the second character, so that the abrupt "<!-->" and "<!--->" end at once.
    size_t a = in_.find("-->", pos_ + 2);
    size_t b = in_.find("--!>", pos_ + 2);
    size_t end = std::min(a == std::string_view::npos ? in_.size() : a + 3,
                          b == std::string_view::npos ? in_.size() : b + 4);
    pos_ = end;
  }

  // Skips to just past the end tag of the raw-text element `name` (or to the end of input).
  void SkipRawText(std::string_view name) {
    for (size_t i = in_.find("</", pos_); i != std::string_view::npos; i = in_.find("</", i + 2)) {
      std::string_view rest = in_.substr(i + 2);
      if (rest.size() >= name.size() && EqualsIgnoreCase(rest.substr(0, name.size()), name) &&
          (rest.size() == name.size() || IsHtmlSpace(rest[name.size()]) ||
           rest[name.size()] == '/' || rest[name.size()] == '>')) {
        pos_ = i;
        if (!ReadTag()) {
          pos_ = in_.size();
        }
        return;
      }
    }
    pos_ = in_.size();
  }

  static bool ValidName(std::string_view name) {
    return !name.empty() && IsAsciiAlpha(name[0]) &&
           std::all_of(name.begin(), name.end(),
                       [](char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-'; });
  }

  // Start tags that make gumbo close the open element `top` first (<p><p>, <li><li>, ...).
  static bool ClosesSibling(std::string_view name, std::string_view top) {
    if (name == "p" || name == "li" || name == "tr") {
      return top == name;
    }
    if (name == "dd" || name == "dt") {
      return top == "dd" || top == "dt";
    }
    if (name == "td" || name == "th") {
      return top == "td" || top == "th";
    }
    return false;
  }

  void Handle(const Tag& tag) {
    if (skip_depth_ > 0) {
      if (tag.name == skip_name_ && !tag.self_closing) {
        skip_depth_ += tag.end ? -1 : 1;
      }
      return;
    }
    const std::string& name = tag.name;
    if (!ValidName(name) || OneOf(name, kIgnoredTags)) {
      return;
    }
    bool raw_text = OneOf(name, kRawTextTags);
    bool foreign = OneOf(name, kForeignTags);
    if (tag.end) {
      if (raw_text || foreign || name == "plaintext") {
        return;
      }
      out_ += "</";
      out_ += name;
      out_ += '>';
      if (!open_.empty() && open_.back() == name) {
        open_.pop_back();
      }
      return;
    }
    if (name == "plaintext") {
      pos_ = in_.size();  // everything after it is its text
    } else if (raw_text) {
      SkipRawText(name);
    } else if (foreign) {
      if (!tag.self_closing) {
        Skip(name);
      }
    } else if (OneOf(name, kVoidTags)) {
      EmitStartTag(tag);
    } else {
      if (!open_.empty() && ClosesSibling(name, open_.back())) {
        open_.pop_back();
      }
      if (open_.size() >= kMaxHtmlDepth) {
        if (OneOf(name, kDroppedContainers)) {
          Skip(name);
        }
        return;
      }
      EmitStartTag(tag);
      open_.push_back(name);
    }
  }

  void Skip(const std::string& name) {
    skip_name_ = name;
    skip_depth_ = 1;
  }

  void EmitStartTag(const Tag& tag) {
    out_ += '<';
    out_ += tag.name;
    auto attribute = [&](std::string_view attr, const std::optional<std::string_view>& value) {
      if (!value) {
        return;
      }
      out_ += ' ';
      out_ += attr;
      out_ += "=\"";
      for (char c : *value) {
        if (c == '"') {
          out_ += "&quot;";
        } else {
          out_ += c;
        }
      }
      out_ += '"';
    };
    attribute("href", tag.href);
    attribute("src", tag.src);
    attribute("alt", tag.alt);
    attribute("class", tag.cls);
    out_ += '>';
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string out_;
  std::vector<std::string> open_;  // an overestimate of gumbo's stack of open elements
  std::string skip_name_;          // skipping svg, math or a too-deep container until its end
  int skip_depth_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Stage 2: gumbo with a bounded arena.

class ParseArena {
 public:
  explicit ParseArena(size_t budget) : budget_(budget) { head_.prev = head_.next = &head_; }
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;
  ~ParseArena() {
    for (Block* b = head_.next; b != &head_;) {
      Block* next = b->next;
      std::free(b);
      b = next;
    }
  }

  // The parse tree lives until the arena is destroyed; nullptr when it outgrew the budget.
  GumboOutput* Parse(std::string_view html) {
    GumboOptions options = kGumboDefaultOptions;
    options.allocator = &Allocate;
    options.deallocator = &Deallocate;
    options.userdata = this;
    options.fragment_context = GUMBO_TAG_BODY;
    options.fragment_namespace = GUMBO_NAMESPACE_HTML;
    options.max_errors = 0;  // we never read them
    // Only C frames (gumbo's) lie between here and the longjmp in Allocate, so no destructor
    // is skipped; the arena still owns every block gumbo allocated.
    if (setjmp(escape_) != 0) {
      return nullptr;
    }
    return gumbo_parse_with_options(&options, html.data(), html.size());
  }

 private:
  struct alignas(std::max_align_t) Block {
    Block* prev;
    Block* next;
    size_t size;
  };

  static void* Allocate(void* userdata, size_t size) {
    auto* self = static_cast<ParseArena*>(userdata);
    // Gumbo does not check for allocation failure, so running out is an escape too.
    if (size > self->budget_ - self->live_) {
      std::longjmp(self->escape_, 1);
    }
    auto* b = static_cast<Block*>(std::malloc(sizeof(Block) + size));
    if (b == nullptr) {
      std::longjmp(self->escape_, 1);
    }
    b->size = size;
    b->prev = &self->head_;
    b->next = self->head_.next;
    b->next->prev = b;
    self->head_.next = b;
    self->live_ += size;
    return b + 1;
  }

  static void Deallocate(void* userdata, void* ptr) {
    if (ptr == nullptr) {
      return;
    }
    auto* self = static_cast<ParseArena*>(userdata);
    Block* b = static_cast<Block*>(ptr) - 1;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    self->live_ -= b->size;
    std::free(b);
  }

  Block head_{};  // sentinel of a circular list of live blocks
  size_t live_ = 0;
  size_t budget_;
  std::jmp_buf escape_{};
};

// ---------------------------------------------------------------------------------------------
// Stage 3: the allow-list.

enum class Policy { kKeep, kDrop, kUnwrap };

Policy PolicyFor(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_B:
    case GUMBO_TAG_I:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_A:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_IMG:
      return Policy::kKeep;
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_PARAM:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP:
    case GUMBO_TAG_DATALIST:
    case GUMBO_TAG_KEYGEN:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_LINK:
    case GUMBO_TAG_META:
    case GUMBO_TAG_BASE:
    case GUMBO_TAG_FRAME:
    case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_APPLET:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_XMP:
    case GUMBO_TAG_PLAINTEXT:
      return Policy::kDrop;
    default:
      return Policy::kUnwrap;
  }
}

// Elements that do not start a new line when rendered, so no word break in `text`.
bool IsInline(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_B:
    case GUMBO_TAG_I:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_IMG:
    case GUMBO_TAG_SPAN:
    case GUMBO_TAG_U:
    case GUMBO_TAG_S:
    case GUMBO_TAG_STRIKE:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_SMALL:
    case GUMBO_TAG_BIG:
    case GUMBO_TAG_SUB:
    case GUMBO_TAG_SUP:
    case GUMBO_TAG_ABBR:
    case GUMBO_TAG_ACRONYM:
    case GUMBO_TAG_MARK:
    case GUMBO_TAG_Q:
    case GUMBO_TAG_CITE:
    case GUMBO_TAG_DFN:
    case GUMBO_TAG_DEL:
    case GUMBO_TAG_INS:
    case GUMBO_TAG_KBD:
    case GUMBO_TAG_SAMP:
    case GUMBO_TAG_VAR:
    case GUMBO_TAG_TT:
    case GUMBO_TAG_LABEL:
    case GUMBO_TAG_TIME:
    case GUMBO_TAG_DATA:
    case GUMBO_TAG_BDI:
    case GUMBO_TAG_BDO:
    case GUMBO_TAG_NOBR:
    case GUMBO_TAG_WBR:
    case GUMBO_TAG_RUBY:
    case GUMBO_TAG_RB:
    case GUMBO_TAG_RT:
    case GUMBO_TAG_RTC:
    case GUMBO_TAG_RP:
    case GUMBO_TAG_BLINK:
    case GUMBO_TAG_UNKNOWN:  // custom elements
      return true;
    default:
      return false;
  }
}

// The URL when it is absolute with an allowed scheme, else nullopt. Gumbo has already decoded
// character references, so "&#106;avascript:" arrives as "javascript:".
std::optional<std::string_view> SafeUrl(std::string_view url, bool allow_mailto) {
  // Browsers strip these before reading the scheme.
  while (!url.empty() && (IsAsciiControl(url.front()) || url.front() == ' ')) {
    url.remove_prefix(1);
  }
  while (!url.empty() && (IsAsciiControl(url.back()) || url.back() == ' ')) {
    url.remove_suffix(1);
  }
  // ...and these anywhere ("java\tscript:"), so a URL containing one is refused outright.
  if (std::any_of(url.begin(), url.end(), IsAsciiControl)) {
    return std::nullopt;
  }
  size_t colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0 || !IsAsciiAlpha(url[0])) {
    return std::nullopt;
  }
  std::string_view scheme = url.substr(0, colon);
  if (!std::all_of(scheme.begin(), scheme.end(), [](char c) {
        return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '+' || c == '-' || c == '.';
      })) {
    return std::nullopt;  // "//host", "/a:b", "jav&#x09;ascript:" (after decoding), ...
  }
  std::string_view rest = url.substr(colon + 1);
  if (EqualsIgnoreCase(scheme, "http") || EqualsIgnoreCase(scheme, "https")) {
    if (rest.size() > 2 && rest.starts_with("//")) {
      return url;
    }
  } else if (allow_mailto && EqualsIgnoreCase(scheme, "mailto")) {
    if (!rest.empty()) {
      return url;
    }
  }
  return std::nullopt;
}

const char* Attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&element.attributes, name);
  return attr == nullptr ? nullptr : attr->value;
}

class Writer {
 public:
  explicit Writer(const SanitizeOptions& options) : options_(options) {}

  void Children(const GumboVector& children, size_t depth) {
    for (unsigned i = 0; i < children.length; ++i) {
      Node(*static_cast<const GumboNode*>(children.data[i]), depth);
    }
  }

  SanitizedHtml Finish() && { return {std::move(html_), std::string(Trim(text_))}; }

 private:
  void Node(const GumboNode& node, size_t depth) {
    switch (node.type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
        Text(node.v.text.text);
        return;
      case GUMBO_NODE_ELEMENT:
        if (depth > kMaxHtmlDepth) {
          Flatten(node);
        } else {
          Element(node.v.element, depth);
        }
        return;
      default:  // comments, CDATA, <template> contents
        return;
    }
  }

  void Element(const GumboElement& element, size_t depth) {
    if (element.tag_namespace != GUMBO_NAMESPACE_HTML) {
      return;
    }
    Policy policy = PolicyFor(element.tag);
    if (policy == Policy::kDrop) {
      return;
    }
    bool block = !IsInline(element.tag);
    if (element.tag == GUMBO_TAG_SPAN && options_.mentions) {
      // A mention the comment renderer marked (text/markdown.hpp); that class only, nothing
      // else of any span.
      const char* cls = Attribute(element, "class");
      if (cls != nullptr && std::string_view(cls) == kMentionClass) {
        StartTag("<span class=\"mention\">");
        Children(element.children, depth + 1);
        html_ += "</span>";
        return;
      }
    }
    if (policy == Policy::kUnwrap) {
      Unwrapped(element, block, depth);
      return;
    }
    switch (element.tag) {
      case GUMBO_TAG_A: {
        const char* href = Attribute(element, "href");
        std::optional<std::string_view> url = href ? SafeUrl(href, true) : std::nullopt;
        if (!url) {
          Unwrapped(element, false, depth);
          return;
        }
        StartTag("<a href=\"");
        AppendAttributeValue(*url);
        html_ += "\" rel=\"";
        html_ += options_.user_links ? kUserLinkRel : kLinkRel;
        html_ += options_.user_links ? "\" target=\"_blank\">" : "\">";
        Children(element.children, depth + 1);
        html_ += "</a>";
        return;
      }
      case GUMBO_TAG_IMG: {
        if (!options_.images) {
          if (const char* alt = Attribute(element, "alt")) {
            Text(alt);
          }
          return;
        }
        const char* src = Attribute(element, "src");
        std::optional<std::string_view> url = src ? SafeUrl(src, false) : std::nullopt;
        if (!url) {
          return;
        }
        StartTag("<img src=\"");
        AppendAttributeValue(*url);
        html_ += '"';
        if (const char* alt = Attribute(element, "alt")) {
          html_ += " alt=\"";
          AppendAttributeValue(alt);
          html_ += '"';
        }
        html_ += '>';
        return;
      }
      case GUMBO_TAG_BR:
        StartTag("<br>");
        text_gap_ = true;
        return;
      default:
        break;
    }
    std::string_view name = gumbo_normalized_tagname(element.tag);
    if (block) {
      text_gap_ = true;
    }
    StartTag("<");
    html_ += name;
    html_ += '>';
    // The parser drops a newline straight after <pre>; write one so a leading newline in the
    // content survives the next parse.
    if (element.tag == GUMBO_TAG_PRE && element.children.length > 0) {
      const auto* first = static_cast<const GumboNode*>(element.children.data[0]);
      if ((first->type == GUMBO_NODE_TEXT || first->type == GUMBO_NODE_WHITESPACE) &&
          first->v.text.text[0] == '\n') {
        html_ += '\n';
      }
    }
    Children(element.children, depth + 1);
    html_ += "</";
    html_ += name;
    html_ += '>';
    if (block) {
      text_gap_ = true;
    }
  }

  // The tag goes, the content stays. A block element still separates what is around it, in
  // the text and, with a newline, in the HTML ("<div>a</div><div>b</div>" is not "ab").
  void Unwrapped(const GumboElement& element, bool block, size_t depth) {
    if (block) {
      Break();
    }
    Children(element.children, depth + 1);
    if (block) {
      Break();
    }
  }

  // Below kMaxHtmlDepth: only the text, without recursion (gumbo may nest a few times deeper
  // than the canonical markup, adding table sections and re-opened formatting elements).
  void Flatten(const GumboNode& root) {
    std::vector<std::pair<const GumboNode*, bool>> stack = {{&root, false}};  // bool: leaving
    while (!stack.empty()) {
      auto [node, leaving] = stack.back();
      stack.pop_back();
      if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE) {
        Text(node->v.text.text);
        continue;
      }
      if (node->type != GUMBO_NODE_ELEMENT) {
        continue;
      }
      const GumboElement& element = node->v.element;
      if (element.tag_namespace != GUMBO_NAMESPACE_HTML ||
          PolicyFor(element.tag) == Policy::kDrop) {
        continue;
      }
      bool block = !IsInline(element.tag);
      if (block) {
        Break();
      }
      if (leaving) {
        continue;
      }
      if (block) {
        stack.emplace_back(node, true);
      }
      for (unsigned i = element.children.length; i > 0; --i) {
        stack.emplace_back(static_cast<const GumboNode*>(element.children.data[i - 1]), false);
      }
    }
  }

  void Break() {
    text_gap_ = true;
    html_gap_ = true;
  }

  void StartTag(std::string_view opening) {
    FlushHtmlGap(false);
    html_ += opening;
  }

  void FlushHtmlGap(bool next_is_space) {
    if (html_gap_ && !html_.empty() && !next_is_space) {
      html_ += '\n';
    }
    html_gap_ = false;
  }

  void Text(std::string_view s) {
    if (s.empty()) {
      return;
    }
    FlushHtmlGap(IsHtmlSpace(s.front()));
    for (char c : s) {
      if (IsHtmlSpace(c)) {
        text_gap_ = true;
      } else if (IsAsciiControl(c)) {
        continue;  // never meaningful in prose; NUL in particular confuses other tools
      } else {
        if (text_gap_ && !text_.empty()) {
          text_ += ' ';
        }
        text_gap_ = false;
        text_ += c;
      }
      if (!IsAsciiControl(c) || IsHtmlSpace(c)) {
        AppendEscaped(c, /*in_attribute=*/false);
      }
    }
  }

  void AppendAttributeValue(std::string_view s) {
    for (char c : s) {
      if (!IsAsciiControl(c)) {
        AppendEscaped(c, /*in_attribute=*/true);
      }
    }
  }

  // Appends `c` to html_, as an entity where it could end the text or the quoted attribute
  // value it stands in: & < > always, " and ' only in an attribute value.
  void AppendEscaped(char c, bool in_attribute) {
    switch (c) {
      case '&':
        html_ += "&amp;";
        return;
      case '<':
        html_ += "&lt;";
        return;
      case '>':
        html_ += "&gt;";
        return;
      case '"':
        html_ += in_attribute ? "&quot;" : "\"";
        return;
      case '\'':
        html_ += in_attribute ? "&#39;" : "'";
        return;
      default:
        html_ += c;
    }
  }

  const SanitizeOptions& options_;
  std::string html_;
  std::string text_;
  bool text_gap_ = false;  // white space or a block boundary since the last character of text_
  bool html_gap_ = false;  // an unwrapped block ended: separate what follows with a newline
};

}  // namespace

Result<SanitizedHtml> SanitizeHtml(std::string_view input, const SanitizeOptions& options) {
  if (input.size() > kMaxHtmlBytes) {
    return Fail(ErrorCode::kInvalidArgument, "HTML is larger than 1 MiB");
  }
  if (!CodePoints(input)) {
    return Fail(ErrorCode::kInvalidArgument, "HTML is not valid UTF-8");
  }
  std::string canonical = Canonicalizer(input).Run();
  ParseArena arena(kParseMemoryBase + kParseMemoryPerByte * canonical.size());
  GumboOutput* output = arena.Parse(canonical);
  if (output == nullptr) {
    return Fail(ErrorCode::kInvalidArgument, "HTML is too complex");
  }
  Writer writer(options);
  // In fragment mode the root is a synthetic <html> whose children are the fragment.
  writer.Children(output->root->v.element.children, 1);
  return std::move(writer).Finish();
}

std::string Summary(std::string_view text, size_t max_code_points) {
  return std::string(Trim(PrefixCodePoints(Trim(text), max_code_points)));
}

}  // namespace plaudit::text
