#include "transfer/foreign.hpp"

#include <array>
#include <utility>

#include "text/utf8.hpp"

namespace plaudit::transfer {
namespace {

constexpr std::array<std::pair<Source, std::string_view>, 4> kNames{{
    {Source::kDisqus, "disqus"},
    {Source::kWordpress, "wordpress"},
    {Source::kWaline, "waline"},
    {Source::kTwikoo, "twikoo"},
}};

}  // namespace

std::optional<Source> ParseSource(std::string_view name) {
  for (const auto& [source, text] : kNames) {
    if (text == name) {
      return source;
    }
  }
  return std::nullopt;
}

std::string_view SourceName(Source s) {
  for (const auto& [source, text] : kNames) {
    if (source == s) {
      return text;
    }
  }
  return "?";
}

std::string Trimmed(std::string s) {
  const auto last = s.find_last_not_of(" \t\r\n");
  if (last == std::string::npos) {
    return {};
  }
  s.erase(last + 1);
  s.erase(0, s.find_first_not_of(" \t\r\n"));
  return s;
}

std::string QuotedText(std::string_view text) {
  constexpr size_t kMaxQuoted = 200;
  size_t cut = text.size();
  if (cut > kMaxQuoted) {
    cut = kMaxQuoted;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
      --cut;  // not inside a UTF-8 sequence
    }
  }
  std::string out;
  for (const char ch : text.substr(0, cut)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;
    }
  }
  return cut < text.size() ? out + "…" : out;
}

bool CutForeignText(std::string& text) {
  if (text.size() <= kMaxForeignText) {
    return false;
  }
  text.resize(text::CutPoint(text, kMaxForeignText));
  return true;
}

std::unique_ptr<ForeignStream> OpenForeign(Source source, std::istream& in, ForeignSink& sink) {
  switch (source) {
    case Source::kDisqus:
      return OpenDisqus(in, sink);
    case Source::kWordpress:
      return OpenWordpress(in, sink);
    case Source::kWaline:
      return OpenWaline(in, sink);
    case Source::kTwikoo:
      return OpenTwikoo(in, sink);
  }
  return nullptr;
}

Status ReadForeign(Source source, std::istream& in, ForeignSink& sink) {
  auto stream = OpenForeign(source, in, sink);
  if (!stream) {
    return Fail(ErrorCode::kInternal, "an unknown source");
  }
  for (;;) {
    PL_TRY(const bool more, stream->Step());
    if (!more) {
      return {};
    }
  }
}

}  // namespace plaudit::transfer
