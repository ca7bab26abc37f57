#include "text/markdown.hpp"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "text/mentions.hpp"
#include "text/utf8.hpp"

namespace plaudit::text {
namespace {

struct NodeFree {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};
struct IterFree {
  void operator()(cmark_iter* i) const { cmark_iter_free(i); }
};
struct ParserFree {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};

// GitHub's autolink extension: a bare "https://…" or "www.…" in a comment is a link, as on
// every comment service (the widget linked them itself before comments had html). Found once:
// registering the core extensions is process-wide, and a function-local static is
// initialised once even when two threads render at once.
cmark_syntax_extension* FindAutolink() {
  cmark_gfm_core_extensions_ensure_registered();
  return cmark_find_syntax_extension("autolink");
}
using Node = std::unique_ptr<cmark_node, NodeFree>;

// `literal` as text nodes, a line break between its lines (what it looked like when typed).
std::vector<cmark_node*> TextLines(const char* literal) {
  std::vector<cmark_node*> out;
  std::string_view rest = literal == nullptr ? std::string_view() : std::string_view(literal);
  while (!rest.empty() && rest.back() == '\n') {
    rest.remove_suffix(1);  // an HTML block's literal ends with its newline
  }
  while (true) {
    const size_t nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    cmark_node* text = cmark_node_new(CMARK_NODE_TEXT);
    cmark_node_set_literal(text, line.c_str());
    out.push_back(text);
    if (nl == std::string_view::npos) {
      break;
    }
    out.push_back(cmark_node_new(CMARK_NODE_SOFTBREAK));
    rest.remove_prefix(nl + 1);
  }
  return out;
}

// Raw HTML in a comment is text the reader typed ("use a <div>"), shown as typed: cmark's safe
// mode would drop it for an "<!-- raw HTML omitted -->" and the reader's words would vanish.
// Inline HTML becomes text where it stood; an HTML block a paragraph of its lines.
void HtmlAsText(cmark_node* doc) {
  std::vector<cmark_node*> raw;
  {
    const std::unique_ptr<cmark_iter, IterFree> it(cmark_iter_new(doc));
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
      cmark_node* n = cmark_iter_get_node(it.get());
      const cmark_node_type type = cmark_node_get_type(n);
      if (ev == CMARK_EVENT_ENTER &&
          (type == CMARK_NODE_HTML_INLINE || type == CMARK_NODE_HTML_BLOCK)) {
        raw.push_back(n);
      }
    }
  }
  // Replaced after the walk: the iterator must not meet a node it has not seen yet.
  for (cmark_node* n : raw) {
    const bool block = cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK;
    cmark_node* parent = block ? cmark_node_new(CMARK_NODE_PARAGRAPH) : nullptr;
    for (cmark_node* piece : TextLines(cmark_node_get_literal(n))) {
      if (parent != nullptr) {
        cmark_node_append_child(parent, piece);
      } else {
        cmark_node_insert_before(n, piece);
      }
    }
    if (parent != nullptr) {
      cmark_node_insert_before(n, parent);
    }
    cmark_node_unlink(n);
    cmark_node_free(n);
  }
}

// A mention: the renderer writes its opening and closing tags as they are, its text escaped.
cmark_node* MentionNode(std::string_view text) {
  cmark_node* span = cmark_node_new(CMARK_NODE_CUSTOM_INLINE);
  cmark_node_set_on_enter(span, "<span class=\"mention\">");
  cmark_node_set_on_exit(span, "</span>");
  cmark_node* inner = cmark_node_new(CMARK_NODE_TEXT);
  cmark_node_set_literal(inner, std::string(text).c_str());
  cmark_node_append_child(span, inner);
  return span;
}

bool InLink(cmark_node* n) {
  for (cmark_node* p = cmark_node_parent(n); p != nullptr; p = cmark_node_parent(p)) {
    const cmark_node_type type = cmark_node_get_type(p);
    if (type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE) {
      return true;
    }
  }
  return false;
}

// `@name` of a mentionable user in a text node becomes a mention node between the text before
// and after it. Code spans and blocks hold their text in themselves, not in text nodes, so a
// mention in code stays code.
void MarkMentions(cmark_node* doc, const std::vector<std::string>& mentionable) {
  if (mentionable.empty()) {
    return;
  }
  std::vector<cmark_node*> texts;
  {
    const std::unique_ptr<cmark_iter, IterFree> it(cmark_iter_new(doc));
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
      cmark_node* n = cmark_iter_get_node(it.get());
      if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_TEXT && !InLink(n)) {
        texts.push_back(n);
      }
    }
  }
  for (cmark_node* n : texts) {
    const char* literal = cmark_node_get_literal(n);
    const std::string text = literal == nullptr ? std::string() : std::string(literal);
    size_t done = 0;
    bool changed = false;
    for (const Mention& m : FindMentions(text)) {
      if (!std::binary_search(mentionable.begin(), mentionable.end(), m.name)) {
        continue;
      }
      if (m.at > done) {
        cmark_node* before = cmark_node_new(CMARK_NODE_TEXT);
        cmark_node_set_literal(before, text.substr(done, m.at - done).c_str());
        cmark_node_insert_before(n, before);
      }
      cmark_node_insert_before(n, MentionNode(std::string_view(text).substr(m.at, m.size)));
      done = m.at + m.size;
      changed = true;
    }
    if (changed) {
      cmark_node_set_literal(n, text.substr(done).c_str());  // the rest, maybe ""
    }
  }
}

}  // namespace

Result<SanitizedHtml> RenderCommentMarkdown(std::string_view body, const MarkdownOptions& options) {
  if (!CodePoints(body)) {
    return Fail(ErrorCode::kInvalidArgument, "text is not valid UTF-8");
  }
  static cmark_syntax_extension* const autolink = FindAutolink();
  const std::unique_ptr<cmark_parser, ParserFree> parser(cmark_parser_new(CMARK_OPT_DEFAULT));
  if (parser == nullptr || autolink == nullptr ||
      cmark_parser_attach_syntax_extension(parser.get(), autolink) == 0) {
    return Fail(ErrorCode::kInternal, "could not read the text");
  }
  cmark_parser_feed(parser.get(), body.data(), body.size());
  const Node doc(cmark_parser_finish(parser.get()));
  if (doc == nullptr) {
    return Fail(ErrorCode::kInternal, "could not read the text");
  }
  if (!options.raw_html) {
    HtmlAsText(doc.get());
  }
  // The parser leaves a text in pieces (an '@' apart, for the autolinker): one node each, so
  // a mention is found whole.
  cmark_consolidate_text_nodes(doc.get());
  MarkMentions(doc.get(), options.mentionable);
  // cmark allocates with malloc (its default allocator) and leaves freeing to the caller.
  const std::unique_ptr<char, decltype(&std::free)> html(
      cmark_render_html(doc.get(), CMARK_OPT_HARDBREAKS | (options.raw_html ? CMARK_OPT_UNSAFE : 0),
                        cmark_parser_get_syntax_extensions(parser.get())),
      &std::free);
  if (html == nullptr) {
    return Fail(ErrorCode::kInternal, "could not render the text");
  }
  SanitizeOptions sanitize;
  sanitize.images = options.images;
  sanitize.user_links = true;
  sanitize.mentions = !options.raw_html;  // with raw HTML, a span of that class is no mark of ours
  PL_TRY(SanitizedHtml out, SanitizeHtml(html.get(), sanitize));
  // cmark ends every block with a newline; the last one is no part of the comment.
  while (!out.html.empty() && out.html.back() == '\n') {
    out.html.pop_back();
  }
  return out;
}

}  // namespace plaudit::text
