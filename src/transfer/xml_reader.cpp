#include "transfer/xml_reader.hpp"

#include <expat.h>

#include <array>
#include <memory>

namespace plaudit::transfer {
namespace {

// Names arrive as "namespace-URI|local" (XML_ParserCreateNS with '|') or "local".
std::string_view Local(const XML_Char* name) {
  std::string_view n(name);
  const size_t bar = n.rfind('|');
  return bar == std::string_view::npos ? n : n.substr(bar + 1);
}

struct State {
  XML_Parser parser = nullptr;
  XmlHandler* handler = nullptr;
  std::vector<std::string> path;
  std::string text;
  bool cut = false;
  bool leaf = true;  // no child element since the current one started
  Status failed;

  int64_t Line() const { return static_cast<int64_t>(XML_GetCurrentLineNumber(parser)); }

  void Stop(Status st) {
    failed = std::move(st);
    XML_StopParser(parser, XML_FALSE);
  }
};

void OnStart(void* data, const XML_Char* name, const XML_Char** atts) {
  auto* s = static_cast<State*>(data);
  s->path.emplace_back(Local(name));
  s->text.clear();
  s->cut = false;
  s->leaf = true;
  std::vector<XmlAttribute> attributes;
  for (size_t i = 0; atts[i] != nullptr && atts[i + 1] != nullptr; i += 2) {
    attributes.push_back({Local(atts[i]), atts[i + 1]});
  }
  if (auto st = s->handler->Start(s->path, attributes, s->Line()); !st) {
    s->Stop(std::move(st));
  }
}

void OnEnd(void* data, const XML_Char*) {
  auto* s = static_cast<State*>(data);
  std::string text = s->leaf ? std::move(s->text) : std::string();
  if (auto st = s->handler->End(s->path, std::move(text), s->leaf && s->cut, s->Line()); !st) {
    s->Stop(std::move(st));
  }
  s->path.pop_back();
  s->text.clear();
  s->cut = false;
  s->leaf = false;  // the parent now has a child element
}

void OnText(void* data, const XML_Char* chars, int len) {
  auto* s = static_cast<State*>(data);
  const auto n = static_cast<size_t>(len);
  if (s->text.size() + n > kMaxElementText) {
    s->cut = true;
    s->text.append(chars, kMaxElementText - std::min(kMaxElementText, s->text.size()));
    return;
  }
  s->text.append(chars, n);
}

}  // namespace

Status ReadXml(std::istream& in, XmlHandler& handler) {
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(
      XML_ParserCreateNS(nullptr, '|'), &XML_ParserFree);
  if (!parser) {
    return Fail(ErrorCode::kInternal, "cannot create an XML parser");
  }
  State state;
  state.parser = parser.get();
  state.handler = &handler;
  XML_SetUserData(parser.get(), &state);
  XML_SetElementHandler(parser.get(), OnStart, OnEnd);
  XML_SetCharacterDataHandler(parser.get(), OnText);
  std::array<char, 1 << 16> buf{};
  for (;;) {
    in.read(buf.data(), buf.size());
    const auto n = static_cast<int>(in.gcount());
    if (in.bad()) {
      return Fail(ErrorCode::kUnavailable, "cannot read the file");
    }
    const bool last = n == 0 || in.eof();
    if (XML_Parse(parser.get(), buf.data(), n, last ? XML_TRUE : XML_FALSE) == XML_STATUS_ERROR) {
      if (!state.failed) {
        return state.failed;
      }
      return Fail(ErrorCode::kInvalidArgument,
                  "line " + std::to_string(XML_GetCurrentLineNumber(parser.get())) +
                      ": not well-formed XML (" + XML_ErrorString(XML_GetErrorCode(parser.get())) +
                      ")");
    }
    if (last) {
      return {};
    }
  }
}

}  // namespace plaudit::transfer
